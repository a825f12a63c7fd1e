/**
 * farm-core's side of memory management (FaRM NSDI'14 §3.3, §3.5; DESIGN §8): what farm-alloc's
 * interfaces need from the cluster.
 *
 * <ul>
 *   <li>{@link io.farm.core.alloc.NodeAllocator}: a node's object allocator: farm-alloc's block
 *       allocator and one slab allocator per worker over the two below, with allocations near
 *       another node's objects, and frees of them, routed to that node over RPC, and its block tables
 *       copied to the regions' backups at allocation time;</li>
 *   <li>{@link io.farm.core.alloc.RegionAllocator}: the {@link io.farm.alloc.RegionSource} of a
 *       node: new regions with this node as primary, near a hint, replicated to the backups
 *       before use;</li>
 *   <li>{@link io.farm.core.alloc.ClusterEpochs}: the {@link io.farm.alloc.ReclamationEpochs} of a
 *       node: the epoch every worker of every member has passed;</li>
 *   <li>{@link io.farm.core.alloc.AllocationMessageDescriptor}: the layouts of their messages,
 *       RPC arguments and results ({@link io.farm.core.rpc}) and epoch messages.</li>
 * </ul>
 *
 * Wiring one node: {@code Rpc rpc = Rpc.attach(node); RegionAllocator regions = RegionAllocator.attach(node, rpc);
 * ClusterEpochs epochs = ClusterEpochs.attach(node); NodeAllocator objects = NodeAllocator.attach(node, rpc, regions, epochs);},
 * on every member before any of them allocates.
 */
package io.farm.core.alloc;
