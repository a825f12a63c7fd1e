package io.farm.alloc;

/**
 * Distributed epochs for reusing memory across size classes (FaRM NSDI'14 §3.5): a block freed in
 * epoch {@code e} may hold objects that lock-free readers on any machine still expect to find
 * type-stable, so it becomes reusable for another size class only once every worker of every
 * member has moved past {@code e}. Defined here, implemented by farm-core (which runs the
 * cluster-wide agreement); tests implement it directly.
 */
public interface ReclamationEpochs {
    /** The current epoch of this node (monotonic). */
    long current();

    /**
     * The newest epoch that every worker of every member has passed: memory freed in an epoch
     * below or equal to it may be reused for another size class.
     */
    long safe();

    /**
     * Asks for the epoch to advance (the allocator calls this when free memory falls below its
     * threshold); {@link #safe()} moves on once every worker has passed.
     */
    void requestAdvance();
}
