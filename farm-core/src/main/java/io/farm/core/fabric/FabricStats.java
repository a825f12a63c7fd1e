package io.farm.core.fabric;

/**
 * Operation and byte counts by kind: the machine-independent figures of farm (DESIGN §4.4).
 */
public record FabricStats(long readOps, long readBytes, long writeOps, long writeBytes,
                          long messageOps, long messageBytes) {
    /** All zero. */
    public static final FabricStats ZERO = new FabricStats(0, 0, 0, 0, 0, 0);

    /** Element-wise sum. */
    public FabricStats plus(FabricStats o) {
        return new FabricStats(readOps + o.readOps, readBytes + o.readBytes, writeOps + o.writeOps,
            writeBytes + o.writeBytes, messageOps + o.messageOps, messageBytes + o.messageBytes);
    }

    /** Element-wise difference: the counts accrued since {@code earlier}. */
    public FabricStats minus(FabricStats earlier) {
        return new FabricStats(readOps - earlier.readOps, readBytes - earlier.readBytes,
            writeOps - earlier.writeOps, writeBytes - earlier.writeBytes,
            messageOps - earlier.messageOps, messageBytes - earlier.messageBytes);
    }

    @Override
    public String toString() {
        return "reads " + readOps + " (" + readBytes + " B), writes " + writeOps + " (" + writeBytes
            + " B), messages " + messageOps + " (" + messageBytes + " B)";
    }
}
