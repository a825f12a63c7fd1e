package io.farm.bench.check;

import io.farm.core.addr.GlobalAddress;
import io.farm.core.tx.AbortReason;
import io.farm.core.tx.history.CommittedTransaction;
import io.farm.core.tx.history.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What node processes hand to the checking process: histories, accounts, outcomes, barriers. */
class CheckFilesTest {
    @TempDir
    Path temp;

    private static final long X = GlobalAddress.of(7, 128);
    private static final long Y = GlobalAddress.of(9, 4096);

    private static History history() {
        return new History(List.of(
            CommittedTransaction.builder(0x0001_0200_0000_0001L, 100).write(X, 3, 4).read(Y, 2).commit(250),
            CommittedTransaction.builder(2, 260).read(X, 4).read(Y, 2).read(X, 4).commit(300),
            CommittedTransaction.builder(3, 301).commit(301)), 7);
    }

    @Test
    void aHistoryReadsBackAsWritten() {
        Path file = temp.resolve("history.bin");
        History written = history();

        HistoryFile.write(written, file);
        History read = HistoryFile.read(file);

        assertEquals(written.dropped(), read.dropped());
        assertEquals(written.transactions().size(), read.transactions().size());
        for (int t = 0; t < written.transactions().size(); t++) {
            assertEquals(written.transactions().get(t).describe(), read.transactions().get(t).describe());
            assertEquals(written.transactions().get(t).id(), read.transactions().get(t).id());
        }
        assertFalse(Files.exists(temp.resolve("history.bin.partial")), "the partial file is renamed");
    }

    @Test
    void aTruncatedHistoryIsAClearError() throws IOException {
        Path file = temp.resolve("history.bin");
        HistoryFile.write(history(), file);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 5));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HistoryFile.read(file));
        assertTrue(e.getMessage().contains("is truncated"), e.getMessage());
    }

    @Test
    void aFileThatIsNoHistoryIsAClearError() throws IOException {
        Path file = temp.resolve("other.bin");
        Files.write(file, new byte[64]);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HistoryFile.read(file));
        assertTrue(e.getMessage().contains("is no history file"), e.getMessage());
    }

    @Test
    void accountsReadBackAsStored() {
        Accounts accounts = new Accounts(new long[] {X, Y, GlobalAddress.of(65_535, 0)}, new long[] {1, 2, 3});
        Path file = temp.resolve("accounts.txt");

        accounts.store(file);
        Accounts read = Accounts.load(file);

        assertArrayEquals(accounts.addresses(), read.addresses());
        assertArrayEquals(accounts.versions(), read.versions());
        assertTrue(read.initialVersions().isInitial(Y, 2));
    }

    @Test
    void anOutcomeReadsBackAsStoredAndOutcomesAddUp() {
        long[] aborted = new long[AbortReason.values().length];
        aborted[AbortReason.LOCK_HELD.ordinal()] = 4;
        WorkloadTally tally = new WorkloadTally();
        tally.transfers = 10;
        tally.declined = 1;
        tally.countAudit(99, 100, 0);
        tally.countPartialAudit(0);
        tally.countFailure(new IllegalStateException("first"));
        NodeOutcome outcome = new NodeOutcome(12, aborted, tally, 6400, 0);
        Path file = temp.resolve("outcome.properties");

        outcome.store(file);
        NodeOutcome read = NodeOutcome.load(file);
        NodeOutcome sum = read.plus(new NodeOutcome(3, aborted, new WorkloadTally(), -1, 0));

        assertEquals(12, read.committed());
        assertArrayEquals(aborted, read.aborted());
        assertEquals(10, read.tally().transfers);
        assertEquals(1, read.tally().declined);
        assertEquals(1, read.tally().audits);
        assertEquals(1, read.tally().partialAudits);
        assertEquals(1, read.tally().wrongAudits);
        assertEquals(1, read.tally().errors);
        assertEquals(tally.firstWrongAudit, read.tally().firstWrongAudit);
        assertEquals("java.lang.IllegalStateException: first", read.tally().firstError);
        assertEquals(6400, read.finalTotal());
        assertEquals(15, sum.committed());
        assertEquals(8, sum.abortedTotal());
        assertEquals(6400, sum.finalTotal(), "the final audit is the one node's that ran it");
    }

    @Test
    void aBarrierOpensWhenEveryNodeArrived() throws Exception {
        ExchangeDirectory exchange = new ExchangeDirectory(temp);
        CompletableFuture<Void> late = CompletableFuture.runAsync(() -> {
            sleep(50);
            exchange.arrive("phase", 1, 2, Duration.ofSeconds(30));
        });

        exchange.arrive("phase", 0, 2, Duration.ofSeconds(30));

        late.get();
    }

    @Test
    void aBarrierNamesTheNodesThatDidNotArrive() {
        ExchangeDirectory exchange = new ExchangeDirectory(temp);

        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> exchange.arrive("other", 0, 3, Duration.ofMillis(20)));

        assertTrue(e.getMessage().contains("nodes [1, 2] did not arrive at barrier other"), e.getMessage());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
