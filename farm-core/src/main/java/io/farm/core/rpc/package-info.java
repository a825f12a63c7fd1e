/**
 * Request/response calls between the workers of a cluster over the message rings (FaRM NSDI'14
 * §3.1): {@link io.farm.core.rpc.Rpc} calls and serves, {@link io.farm.core.rpc.RpcService}
 * serves one method and answers through its {@link io.farm.core.rpc.RpcReply},
 * {@link io.farm.core.rpc.RpcDecoder} turns a result into the caller's value, and
 * {@link io.farm.core.rpc.RpcException} says why a call produced none. The frames are laid out
 * in {@link io.farm.core.rpc.RpcMessageDescriptor}; each service lays out its own arguments and
 * results (memory management's in {@link io.farm.core.alloc.AllocationMessageDescriptor}).
 *
 * <p>Attach one per node, {@code Rpc rpc = Rpc.attach(node)}, on every member before any of them calls.
 */
package io.farm.core.rpc;
