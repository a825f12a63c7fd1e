package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;

/**
 * One edge of a dependency cycle: {@code from} must precede {@code to}.
 *
 * @param from    the earlier transaction
 * @param to      the later transaction
 * @param kind    why
 * @param address the object the edge is about; {@link GlobalAddress#NULL} for {@link DependencyKind#REAL_TIME}
 * @param version the version the edge is about; -1 for {@link DependencyKind#REAL_TIME}
 */
public record Dependency(CommittedTransaction from, CommittedTransaction to, DependencyKind kind, long address, long version) {
    /** A readable account, e.g. {@code T1 -rw-> T2 (T1 read 1+0x40 v3, which T2 overwrote)}. */
    @Override
    public String toString() {
        String object = kind == DependencyKind.REAL_TIME ? "" : GlobalAddress.toString(address) + " v" + version;
        String why = switch (kind) {
            case WRITE_READ -> to + " read " + object + ", which " + from + " wrote";
            case WRITE_WRITE -> to + " overwrote " + object + ", which " + from + " wrote";
            case READ_WRITE -> from + " read " + object + ", which " + to + " overwrote";
            case REAL_TIME -> from + " committed at " + from.commitNanos() + ", before " + to + " started at " + to.startNanos();
        };
        return from + " -" + kind.label() + "-> " + to + " (" + why + ")";
    }
}
