package io.farm.core.config;

/**
 * One machine of a static cluster: its node id (0 .. N-1) and its name.
 *
 * @param id   the node id, as used in region ids, fabrics and placement
 * @param name a name unique in the cluster, for people and logs
 */
public record Member(int id, String name) {
    @Override
    public String toString() {
        return id + ":" + name;
    }
}
