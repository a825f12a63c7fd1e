package io.farm.core.alloc;

import io.farm.core.cluster.Node;
import io.farm.core.rpc.RpcMessageDescriptor;
import io.farm.core.testing.ShmTempDirs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.farm.core.testing.Liveness.await;
import static io.farm.core.testing.Liveness.awaitCondition;
import static io.farm.core.testing.Liveness.capturingStandardError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reclamation epochs in an embedded cluster of three nodes with two workers each. */
class ClusterEpochsTest {
    @TempDir(factory = ShmTempDirs.class)
    Path temp;

    @Test
    void safeMovesPastAnEpochOnceEveryWorkerOfEveryMemberHasMovedOn() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("advance"), 3, 2)) {
            ClusterEpochs epochs = cluster.member(0).epochs();
            assertEquals(ClusterEpochs.FIRST_EPOCH, epochs.current());
            assertEquals(ClusterEpochs.FIRST_EPOCH - 1, epochs.safe(), "nothing was freed before the first epoch");

            epochs.requestAdvance();

            assertEquals(2, epochs.current());
            awaitCondition("safe() reaches epoch 1", () -> epochs.safe() == 1);
            for (int member = 0; member < 3; member++) {
                assertEquals(2, epochs.acknowledged(member), "member " + member + " acknowledged epoch 2");
            }
            // From a worker of the node as well as from any other thread.
            await(cluster.node(0).submit(1, worker -> {
                epochs.requestAdvance();
                return CompletableFuture.completedFuture(null);
            }));
            awaitCondition("safe() reaches epoch 2", () -> epochs.safe() == 2);
            assertEquals(3, epochs.current());
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void safeNeverPassesAnEpochThatABusyWorkerOfAnotherMemberHasNotPassed() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("busy-peer"), 3, 2)) {
            ClusterEpochs epochs = cluster.member(0).epochs();
            ClusterEpochs peer = cluster.member(2).epochs();
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> busy;
            try {
                busy = MemoryCluster.keepBusy(cluster.node(2), 1, release);

                // From node 0's worker 0: the advance reaches node 2 on the ring of its worker 0, which is free.
                await(cluster.node(0).submit(0, worker -> {
                    epochs.requestAdvance();
                    return CompletableFuture.completedFuture(null);
                }));

                // Everything that can happen without node 2's worker 1 has happened...
                awaitCondition("node 0 and node 1 acknowledge epoch 2", () -> epochs.acknowledged(0) == 2 && epochs.acknowledged(1) == 2);
                awaitCondition("node 2 opens an epoch for the advance and its free worker adopts it",
                    () -> peer.current() == 2 && peer.workerEpoch(0) == 2);
                // ...and still epoch 1 is not safe: node 2's worker 1 may still run code of epoch 1.
                assertEquals(ClusterEpochs.FIRST_EPOCH, peer.workerEpoch(1));
                assertEquals(ClusterEpochs.FIRST_EPOCH, epochs.acknowledged(2));
                assertEquals(0, epochs.safe());

                // A request while the advance is outstanding opens nothing yet.
                epochs.requestAdvance();
                assertEquals(2, epochs.current());
                assertEquals(0, epochs.safe());
            } finally {
                release.countDown();
            }
            await(busy);

            awaitCondition("safe() reaches epoch 1 once the busy worker moved on", () -> epochs.safe() >= 1);
            // The request made meanwhile opens the next advance as soon as the first completes.
            awaitCondition("the remembered request advances safe() to epoch 2", () -> epochs.safe() == 2);
            assertEquals(3, epochs.current());
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void safeNeverPassesAnEpochThatABusyWorkerOfTheRequesterHasNotPassed() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("busy-self"), 3, 2)) {
            ClusterEpochs epochs = cluster.member(1).epochs();
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> busy;
            try {
                busy = MemoryCluster.keepBusy(cluster.node(1), 0, release);

                // From the free worker: a request from another thread would be handed to any worker, maybe the busy one.
                await(cluster.node(1).submit(1, worker -> {
                    epochs.requestAdvance();
                    return CompletableFuture.completedFuture(null);
                }));

                // The other members pass the advance (their acknowledgements may travel to the busy worker's ring)...
                for (int other : new int[] {0, 2}) {
                    ClusterEpochs theirs = cluster.member(other).epochs();
                    awaitCondition("node " + other + " opens epoch 2 for the advance and its workers pass it",
                        () -> theirs.current() == 2 && theirs.workerEpoch(0) == 2 && theirs.workerEpoch(1) == 2);
                }
                awaitCondition("the free worker adopts epoch 2", () -> epochs.workerEpoch(1) == 2);
                // ...but the requester's busy worker has not: epoch 1 is not safe.
                assertEquals(ClusterEpochs.FIRST_EPOCH, epochs.workerEpoch(0));
                assertEquals(0, epochs.safe());
            } finally {
                release.countDown();
            }
            await(busy);

            awaitCondition("safe() reaches epoch 1", () -> epochs.safe() == 1);
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void advancesOfSeveralMembersAtOnceAllComplete() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("several"), 3, 2)) {
            for (int round = 0; round < 20; round++) {
                for (MemoryCluster.Member member : cluster.members()) {
                    member.epochs().requestAdvance();
                }
            }
            // Each node opened its first advance and, for the requests made meanwhile, at least one more.
            for (MemoryCluster.Member member : cluster.members()) {
                ClusterEpochs epochs = member.epochs();
                awaitCondition("node " + member.node().id() + " completes two advances", () -> epochs.safe() >= 2);
            }
            for (MemoryCluster.Member member : cluster.members()) {
                ClusterEpochs epochs = member.epochs();
                long before = epochs.safe();
                epochs.requestAdvance();
                awaitCondition("a later request of node " + member.node().id() + " moves safe() on", () -> epochs.safe() > before);
                // The others' advances move current() too, so safe() trails it by one or more.
                assertTrue(epochs.safe() < epochs.current());
            }
            assertEquals(0, cluster.workerErrors());
        }
    }

    @Test
    void malformedEpochMessagesAreReportedAndChangeNothing() throws Exception {
        try (MemoryCluster cluster = MemoryCluster.start(temp.resolve("malformed"), 3, 2)) {
            Node receiver = cluster.node(0);
            ClusterEpochs epochs = cluster.member(0).epochs();
            long errorsBefore = receiver.workers().errorCount();
            MemorySegment message = Arena.ofAuto().allocate(24, 8);

            String report = capturingStandardError(() -> {
                await(cluster.node(1).submit(0, worker -> {
                    AllocationMessageDescriptor.writeEpochMessage(message, 0, RpcMessageDescriptor.STATIC_CONFIGURATION, 7);
                    worker.messenger().send(0, AllocationMessageDescriptor.EPOCH_ACK, message, 0, 16);
                    worker.messenger().send(0, AllocationMessageDescriptor.EPOCH_ACK, message, 0, 12);
                    AllocationMessageDescriptor.writeEpochMessage(message, 0, 5, 1);
                    worker.messenger().send(0, AllocationMessageDescriptor.EPOCH_ADVANCE, message, 0, 16);
                    AllocationMessageDescriptor.writeEpochMessage(message, 0, RpcMessageDescriptor.STATIC_CONFIGURATION, 0);
                    worker.messenger().send(0, AllocationMessageDescriptor.EPOCH_ADVANCE, message, 0, 16);
                    // A ping on the same ring: its answer shows that the messages before it were handled.
                    return worker.ping(0);
                }));
            });

            assertEquals(errorsBefore + 4, receiver.workers().errorCount(), report);
            assertTrue(report.contains("malformed epoch acknowledgement from node 1: it acknowledges epoch 7 of node 0,"
                + " which has opened epochs up to 1 only"), report);
            assertTrue(report.contains("malformed epoch acknowledgement from node 1: 12 bytes, expected 16"), report);
            assertTrue(report.contains("epoch advance from node 1 was sent in configuration 5; node 0 is in configuration 0"), report);
            assertTrue(report.contains("malformed epoch advance from node 1: epoch 0, epochs start at 1"), report);
            assertEquals(ClusterEpochs.FIRST_EPOCH, epochs.acknowledged(1));
            assertEquals(ClusterEpochs.FIRST_EPOCH, epochs.current(), "no advance was opened for the refused messages");

            epochs.requestAdvance();
            awaitCondition("node 0 still advances", () -> epochs.safe() == 1);
        }
    }
}
