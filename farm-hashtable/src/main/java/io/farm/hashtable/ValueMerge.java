package io.farm.hashtable;

/**
 * A merge of an argument into a stored value, run by {@link HashTable#merge} at the key's shard
 * primary inside the transaction that writes the result: a read-modify-write that is atomic
 * cluster-wide and costs one shipped message. Registered under an id on every node that may hold
 * shards ({@link HashTables#registerMerge}); the id travels in the message.
 *
 * <p>A merge must be pure and deterministic: it may run more than once for one call (its
 * transaction is retried after a conflict) and its result must depend only on its inputs. It
 * must not change its arguments.
 */
@FunctionalInterface
public interface ValueMerge {
    /**
     * The value that replaces {@code current}.
     *
     * @param current  the key's stored value (never null)
     * @param argument the caller's argument (never null)
     * @return the new value, at most the table's maximum value length
     * @throws IllegalArgumentException to refuse the argument or the stored value; the call then
     *                                  fails with this message and the key keeps its value
     */
    byte[] merge(byte[] current, byte[] argument);
}
