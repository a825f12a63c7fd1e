package io.farm.core.alloc;

import io.farm.core.placement.ReplicaSet;

/** How an operation replicated to a region's backups names the backups it did not reach. */
final class BackupFailures {
    private BackupFailures() {
    }

    /**
     * "backup 2 (why), backup 4 (why)" for every backup {@code i} (1 .. size-1 of {@code replicas})
     * whose {@code failures[i]} is set.
     */
    static String describe(ReplicaSet replicas, Throwable[] failures) {
        StringBuilder names = new StringBuilder();
        for (int i = 1; i < replicas.size(); i++) {
            if (failures[i] != null) {
                names.append(names.isEmpty() ? "" : ", ").append("backup ").append(replicas.node(i)).append(" (")
                    .append(failures[i].getMessage()).append(')');
            }
        }
        return names.toString();
    }
}
