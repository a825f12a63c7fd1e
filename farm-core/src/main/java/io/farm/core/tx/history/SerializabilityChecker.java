package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.LongHashSet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a {@link History} of committed transactions for (strict) serializability by building its
 * dependency graph and looking for cycles (DESIGN §7).
 *
 * <p><b>Why the graph is exact.</b> Every committed write of an object installs a new version, and
 * an (address, version) pair is installed by at most one transaction (or is the object's initial
 * version). A recorded read or overwrite of a version therefore names the one transaction that
 * wrote it, and the overwrites of each version give the object's version order directly, without
 * guessing from values or timestamps. The edges are:
 * <ul>
 *   <li>{@link DependencyKind#WRITE_READ}: writer of (a, v) to every transaction that read (a, v);</li>
 *   <li>{@link DependencyKind#WRITE_WRITE}: writer of (a, v) to every transaction that overwrote (a, v);</li>
 *   <li>{@link DependencyKind#READ_WRITE}: every transaction that read or overwrote (a, v) to the
 *       other transactions that overwrote (a, v) (when k transactions overwrote one version, the
 *       checker links them in a ring and each reader to one of them, which keeps the reachability,
 *       hence the cycles, of all k(k-1) pairs with O(k) edges);</li>
 *   <li>{@link DependencyKind#REAL_TIME} (strict mode): T1 precedes T2 when T1 committed before T2
 *       started. Instead of O(n²) edges the checker adds one point per transaction in commit order,
 *       chained p0 → p1 → …: each transaction links to its own point, and the point of the last
 *       commit before a transaction's start links to that transaction. A path T1 → … → T2 through
 *       points exists exactly when T1 committed before T2 started, with 3n edges.</li>
 * </ul>
 * A history is serializable iff this graph is acyclic. The checker finds the strongly connected
 * components (Tarjan, iterative) and reports, for each component that has a cycle, one witness:
 * a shortest cycle (counting real-time points) through the component's first transaction in the
 * history's order. Any cycle of the graph lies in one of these components, so every violation is
 * reported, and the count is the number of independent (disjoint) cyclic components, not of all
 * cycles, which may be exponentially many. The work is linear in reads, writes and transactions,
 * plus a sort by commit time.
 *
 * <p><b>Impossible histories</b> are reported too: a version installed twice (the initial state
 * counting as its first writer), and a version read or overwritten that nobody wrote and that is
 * not initial ({@link InitialVersions}; only for complete histories). Versions restart at 0 when
 * the allocator formats memory for another size class, so a history must not span such a reuse
 * of an address, or it reports the address's versions as written twice.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class SerializabilityChecker {
    private final boolean realTime;
    private final InitialVersions initialVersions;

    private SerializabilityChecker(boolean realTime, InitialVersions initialVersions) {
        this.realTime = realTime;
        this.initialVersions = initialVersions;
    }

    /** A checker for strict serializability (real-time edges included), with initial versions {@code initialVersions}. */
    public static SerializabilityChecker strict(InitialVersions initialVersions) {
        return new SerializabilityChecker(true, requireInitialVersions(initialVersions));
    }

    /** A checker for serializability (no real-time edges), with initial versions {@code initialVersions}. */
    public static SerializabilityChecker serializable(InitialVersions initialVersions) {
        return new SerializabilityChecker(false, requireInitialVersions(initialVersions));
    }

    /** Whether this checker adds real-time edges (strict serializability). */
    public boolean realTime() {
        return realTime;
    }

    /**
     * Checks {@code history}.
     *
     * @throws IllegalArgumentException if two transactions of the history have the same id
     */
    public CheckReport check(History history) {
        CommittedTransaction[] transactions = history.transactions().toArray(new CommittedTransaction[0]);
        requireUniqueIds(transactions);
        int n = transactions.length;
        VersionIndex index = indexVersions(transactions);

        DependencyGraph.Edges edges = new DependencyGraph.Edges();
        List<Impossibility> impossibilities = new ArrayList<>();
        IntArrayList writers = new IntArrayList();
        IntArrayList readers = new IntArrayList();
        IntArrayList overwriters = new IntArrayList();
        for (int id = 0; id < index.versionCount(); id++) {
            index.transactions(id, VersionIndex.WRITER, writers);
            index.transactions(id, VersionIndex.READER, readers);
            index.transactions(id, VersionIndex.OVERWRITER, overwriters);
            addVersionEdges(index.address(id), index.version(id), writers, readers, overwriters,
                transactions, edges, impossibilities, history.complete());
        }
        int nodes = n;
        if (realTime) {
            addRealTimeEdges(transactions, edges);
            nodes = 2 * n;
        }
        List<Cycle> cycles = new DependencyGraph(transactions, nodes, edges).cycles();
        return new CheckReport(n, realTime, cycles, impossibilities, history.complete());
    }

    private static VersionIndex indexVersions(CommittedTransaction[] transactions) {
        VersionIndex index = new VersionIndex();
        for (int t = 0; t < transactions.length; t++) {
            CommittedTransaction transaction = transactions[t];
            for (int i = 0; i < transaction.readCount(); i++) {
                index.add(transaction.readAddress(i), transaction.readVersion(i), VersionIndex.READER, t);
            }
            for (int i = 0; i < transaction.writeCount(); i++) {
                long address = transaction.writeAddress(i);
                index.add(address, transaction.writtenVersion(i), VersionIndex.WRITER, t);
                index.add(address, transaction.overwrittenVersion(i), VersionIndex.OVERWRITER, t);
            }
        }
        return index;
    }

    private void addVersionEdges(long address, long version, IntArrayList writers, IntArrayList readers,
                                 IntArrayList overwriters, CommittedTransaction[] transactions,
                                 DependencyGraph.Edges edges, List<Impossibility> impossibilities, boolean complete) {
        boolean initial = initialVersions.isInitial(address, version);
        if (writers.size() > 1 || (initial && !writers.isEmpty())) {
            impossibilities.add(new Impossibility(Impossibility.Kind.WRITTEN_TWICE, address, version, ids(transactions, writers)));
        } else if (writers.isEmpty() && !initial && complete) {
            IntArrayList involved = new IntArrayList();
            involved.addAll(readers);
            involved.addAll(overwriters);
            impossibilities.add(new Impossibility(Impossibility.Kind.NEVER_WRITTEN, address, version, ids(transactions, involved)));
        }
        for (int i = 0; i < writers.size(); i++) {
            int writer = writers.getInt(i);
            for (int j = 0; j < readers.size(); j++) {
                addUnlessSelf(edges, writer, readers.getInt(j), DependencyKind.WRITE_READ, address, version);
            }
            for (int j = 0; j < overwriters.size(); j++) {
                addUnlessSelf(edges, writer, overwriters.getInt(j), DependencyKind.WRITE_WRITE, address, version);
            }
        }
        int k = overwriters.size();
        if (k == 0) {
            return;
        }
        if (k > 1) {
            for (int j = 0; j < k; j++) {
                edges.add(overwriters.getInt(j), overwriters.getInt((j + 1) % k), DependencyKind.READ_WRITE, address, version);
            }
        }
        for (int j = 0; j < readers.size(); j++) {
            int reader = readers.getInt(j);
            int overwriter = overwriters.getInt(0) != reader ? overwriters.getInt(0) : k > 1 ? overwriters.getInt(1) : reader;
            addUnlessSelf(edges, reader, overwriter, DependencyKind.READ_WRITE, address, version);
        }
    }

    private static void addUnlessSelf(DependencyGraph.Edges edges, int from, int to, DependencyKind kind, long address, long version) {
        if (from != to) {
            edges.add(from, to, kind, address, version);
        }
    }

    /** Real-time points n .. 2n - 1, one per transaction in commit order (see the class comment). */
    private static void addRealTimeEdges(CommittedTransaction[] transactions, DependencyGraph.Edges edges) {
        int n = transactions.length;
        Integer[] order = new Integer[n];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> Long.compare(transactions[a].commitNanos(), transactions[b].commitNanos()));
        long[] commits = new long[n];
        for (int p = 0; p < n; p++) {
            commits[p] = transactions[order[p]].commitNanos();
            edges.add(order[p], n + p, DependencyKind.REAL_TIME, GlobalAddress.NULL, -1);
            if (p + 1 < n) {
                edges.add(n + p, n + p + 1, DependencyKind.REAL_TIME, GlobalAddress.NULL, -1);
            }
        }
        for (int t = 0; t < n; t++) {
            int before = commitsBefore(commits, transactions[t].startNanos());
            if (before > 0) {
                edges.add(n + before - 1, t, DependencyKind.REAL_TIME, GlobalAddress.NULL, -1);
            }
        }
    }

    /** How many of the sorted {@code commits} are strictly before {@code start}. */
    private static int commitsBefore(long[] commits, long start) {
        int low = 0;
        int high = commits.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (commits[mid] < start) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private static List<Long> ids(CommittedTransaction[] transactions, IntArrayList indices) {
        List<Long> ids = new ArrayList<>(indices.size());
        for (int i = 0; i < indices.size(); i++) {
            long id = transactions[indices.getInt(i)].id();
            if (!ids.contains(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    private static void requireUniqueIds(CommittedTransaction[] transactions) {
        LongHashSet ids = new LongHashSet(transactions.length * 2);
        for (CommittedTransaction transaction : transactions) {
            if (!ids.add(transaction.id())) {
                throw new IllegalArgumentException("transaction id " + transaction.id() + " appears twice in the history: ids must be unique");
            }
        }
    }

    private static InitialVersions requireInitialVersions(InitialVersions initialVersions) {
        if (initialVersions == null) {
            throw new NullPointerException("initialVersions");
        }
        return initialVersions;
    }
}
