/**
 * Function shipping (FaRM NSDI'14 §3.2, Figure 6): {@link io.farm.core.ship.FunctionShipping}
 * sends an application message to a worker of the node that holds the primary of an object
 * address ({@code msgSend}) and returns the answer of the {@link io.farm.core.ship.ShippedHandler}
 * registered there for the message's id ({@code msgRegisterHandler}). Messages travel as RPCs
 * of {@link io.farm.core.rpc.Rpc}, laid out in {@link io.farm.core.ship.ShippedMessageDescriptor};
 * a message for an address of the sending node is handled there without messaging.
 *
 * <p>Wiring one node: {@code FunctionShipping shipping = FunctionShipping.attach(node, rpc);}
 * on every member, then {@code shipping.msgRegisterHandler(id, handler)} for each handler on
 * every member, then, on a worker: {@code shipping.msgSend(worker, address, id, message)}.
 */
package io.farm.core.ship;
