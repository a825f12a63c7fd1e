/**
 * Objects as they are stored in regions, and lock-free reads of them (FaRM NSDI'14 §3.5;
 * DESIGN §6).
 *
 * <ul>
 *   <li>{@link io.farm.core.object.ObjectLayout}: the stored layout (version word with lock
 *       mode, incarnation word, 16-bit line versions at the start of every further cache line),
 *       conversion to and from the application's view, the commit's write sequence and the
 *       consistency check of a lock-free reader;</li>
 *   <li>{@link io.farm.core.object.LockFreeReads}: {@code lockFreeStart}, {@code lockFreeRead},
 *       {@code lockFreeEnd} for code on a node's workers, returning
 *       {@link io.farm.core.object.ObjectBuffer}s (consistent copies, with the fabric reads they
 *       took), failing with {@link io.farm.core.object.ObjectFreedException} or
 *       {@link io.farm.core.object.LockFreeReadTimeoutException};</li>
 *   <li>{@link io.farm.core.object.FatPointer}: address, size and incarnation (16 bytes stored).</li>
 * </ul>
 *
 * Wiring one node: {@code LockFreeReads reads = new LockFreeReads(node, ClusterEpochs.attach(node));}
 * then, on a worker: {@code LockFreeOperation op = reads.lockFreeStart(worker);
 * reads.lockFreeRead(op, address, size).whenComplete((buffer, failure) -> reads.lockFreeEnd(op));}
 */
package io.farm.core.object;
