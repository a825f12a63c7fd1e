package io.farm.core.tx.history;

/** Why one committed transaction must precede another in every equivalent serial order. */
public enum DependencyKind {
    /** Write-read: the later transaction read the version the earlier one wrote. */
    WRITE_READ("wr"),
    /** Write-write: the later transaction overwrote the version the earlier one wrote. */
    WRITE_WRITE("ww"),
    /** Read-write (anti-dependency): the earlier transaction read a version the later one overwrote. */
    READ_WRITE("rw"),
    /** Real time: the earlier transaction committed before the later one started (strictness). */
    REAL_TIME("rt");

    private final String label;

    DependencyKind(String label) {
        this.label = label;
    }

    /** The short label witnesses use: wr, ww, rw or rt. */
    public String label() {
        return label;
    }
}
