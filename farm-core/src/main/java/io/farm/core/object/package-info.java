/**
 * Objects as they are stored in regions, and lock-free reads of them (FaRM NSDI'14 §3.5;
 * DESIGN §6).
 *
 * <ul>
 *   <li>{@link io.farm.core.object.ObjectLayout}: the stored layout (version word with lock
 *       mode, incarnation word, 16-bit line versions at the start of every further cache line),
 *       conversion to and from the application's view, the commit's write sequence and the
 *       consistency check of a lock-free reader.</li>
 * </ul>
 */
package io.farm.core.object;
