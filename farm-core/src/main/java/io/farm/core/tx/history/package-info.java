/**
 * Correctness checking in the product (DESIGN §7, issue 4 part 6): recording the committed
 * transactions of a run and checking them for strict serializability.
 *
 * <ul>
 *   <li>{@link io.farm.core.tx.history.CommittedTransaction}: one committed transaction's reads,
 *       writes (with the versions they overwrote) and real-time interval;</li>
 *   <li>{@link io.farm.core.tx.history.HistoryRecorder}: lock-free per-thread recording with a
 *       stated memory bound, giving a {@link io.farm.core.tx.history.History};</li>
 *   <li>{@link io.farm.core.tx.history.SerializabilityChecker}: the exact dependency graph
 *       (unique versions name their writers), real-time order in linear size, cycles reported as
 *       {@link io.farm.core.tx.history.Cycle} witnesses and impossible versions as
 *       {@link io.farm.core.tx.history.Impossibility}, in a {@link io.farm.core.tx.history.CheckReport}.</li>
 * </ul>
 *
 * Use: {@code recorder.record(CommittedTransaction.builder(id, start).read(a, v).write(b, v0, v1).commit(now))}
 * on each commit; at the end
 * {@code SerializabilityChecker.strict(new InitialVersions()).check(recorder.history())}.
 */
package io.farm.core.tx.history;
