package io.farm.bench.check;

import io.farm.bench.NodeLifecycle;
import io.farm.core.Farm;
import io.farm.core.cluster.JvmProcess;
import io.farm.core.cluster.Node;
import io.farm.core.config.ClusterConfig;
import io.farm.core.node.Blocking;
import io.farm.core.tx.history.History;
import io.farm.bench.NodeProcessOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * A node process of {@code farm check bank --fabric shm}. It starts its node, attaches farm and
 * then, in step with the other node processes (barriers in the {@link ExchangeDirectory}):
 * <ol>
 *   <li>{@code attached}: every node has its services attached, so commits may start;</li>
 *   <li>opens its share of the accounts and publishes them; {@code opened}: every node did;</li>
 *   <li>records its history and runs the workload on its workers for the given seconds;
 *       {@code ran}: no node runs a transfer any more;</li>
 *   <li>node 0 runs the final audit; each node writes its history and outcome and prints
 *       {@code DONE}, then serves until the checking process stops it (the final audit may
 *       still read its accounts).</li>
 * </ol>
 * It ends when stopped (SIGTERM) or when its standard input ends, i.e. the checking process
 * is gone, however it ended; a failure prints the stack trace and exits with status 1.
 */
@Command(name = "bank-node", hidden = true, mixinStandardHelpOptions = true,
    description = "A node process of 'check bank --fabric shm' (started by it).")
public final class BankNodeCommand implements Callable<Integer> {
    /** The line a node process prints once its history and outcome are written. */
    static final String DONE = "DONE";
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BARRIER_TIMEOUT = Duration.ofSeconds(120);

    @Mixin
    NodeProcessOptions process;

    @Option(names = "--accounts", required = true, description = "accounts of the whole bank")
    int accounts;

    @Option(names = "--seconds", required = true, description = "seconds of workload")
    double seconds;

    @Override
    public Integer call() {
        ClusterConfig cluster = process.cluster();
        int id = process.id();
        ExchangeDirectory exchange = new ExchangeDirectory(BankCheckCommand.exchangeDir(cluster));
        Node node = process.start(cluster);
        Farm farm;
        try {
            farm = Farm.attach(node);
            node.announce();
            node.awaitPeers(PEER_TIMEOUT);
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
        JvmProcess.announceReady("bank node " + id);
        Thread.ofPlatform().name("bank-check-node" + id).start(() -> {
            try {
                runCheck(farm, cluster.size(), exchange);
                System.out.println(DONE + " node " + id);
                System.out.flush();
            } catch (Throwable failure) {
                System.err.println("bank node " + id + " failed:");
                failure.printStackTrace();
                System.exit(1);
            }
        });
        NodeLifecycle.serveUntilStopped(node, true);
        return 0;
    }

    private void runCheck(Farm farm, int nodes, ExchangeDirectory exchange) {
        int id = process.id();
        BankWorkload workload = new BankWorkload(farm);
        exchange.arrive("attached", id, nodes, BARRIER_TIMEOUT);
        workload.open(BankWorkload.share(id, nodes, accounts)).store(exchange.accounts(id));
        exchange.arrive("opened", id, nodes, BARRIER_TIMEOUT);
        List<Accounts> parts = new ArrayList<>();
        for (int node = 0; node < nodes; node++) {
            parts.add(Accounts.load(exchange.accounts(node)));
        }
        long[] bank = Accounts.concat(parts).addresses();

        workload.startRecording(seconds);
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        WorkloadTally tally;
        try {
            tally = Blocking.await(workload.run(bank, deadline), BankCheckCommand.workloadTimeout(seconds));
        } catch (TimeoutException e) {
            throw new IllegalStateException("the workload of node " + id + " did not end within "
                + BankCheckCommand.workloadTimeout(seconds) + " of its start: an operation hangs");
        }
        exchange.arrive("ran", id, nodes, BARRIER_TIMEOUT);
        BankWorkload.Audit finalAudit = id == 0 ? workload.finalAudit(bank) : null;
        History history = workload.stopRecording();
        HistoryFile.write(history, exchange.history(id));
        workload.outcome(tally, finalAudit).store(exchange.outcome(id));
    }
}
