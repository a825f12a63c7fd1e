package io.farm.core.tx.history;

import io.farm.core.addr.GlobalAddress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The dependency graph of a history in compressed-sparse-row form, and the search for its cycles.
 *
 * Nodes 0 .. transactions - 1 are the committed transactions; nodes from {@code transactions} on
 * are real-time points (see {@link SerializabilityChecker}): edges into, out of and between them
 * carry {@link DependencyKind#REAL_TIME} and a witness path through them is shortened to one
 * real-time edge between the transactions at its ends.
 */
final class DependencyGraph {
    private static final DependencyKind[] KINDS = DependencyKind.values();
    private final CommittedTransaction[] transactions;
    private final int nodes;
    /** Edges of node v: positions offsets[v] .. offsets[v + 1] - 1 of the arrays below. */
    private final int[] offsets;
    private final int[] targets;
    private final byte[] kinds;
    private final long[] addresses;
    private final long[] versions;

    DependencyGraph(CommittedTransaction[] transactions, int nodes, Edges edges) {
        this.transactions = transactions;
        this.nodes = nodes;
        int count = edges.size;
        offsets = new int[nodes + 1];
        for (int e = 0; e < count; e++) {
            offsets[edges.from[e] + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            offsets[v + 1] += offsets[v];
        }
        int[] next = Arrays.copyOf(offsets, nodes);
        targets = new int[count];
        kinds = new byte[count];
        addresses = new long[count];
        versions = new long[count];
        for (int e = 0; e < count; e++) {
            int at = next[edges.from[e]]++;
            targets[at] = edges.to[e];
            kinds[at] = edges.kind[e];
            addresses[at] = edges.address[e];
            versions[at] = edges.version[e];
        }
    }

    /**
     * One witness cycle per strongly connected component with more than one node (the graph has
     * no self-loops), in the order Tarjan's algorithm completes the components.
     */
    List<Cycle> cycles() {
        int[] component = stronglyConnectedComponents();
        int[] componentSize = new int[nodes];
        for (int v = 0; v < nodes; v++) {
            componentSize[component[v]]++;
        }
        boolean[] witnessed = new boolean[nodes];
        int[] parentEdge = new int[nodes];
        int[] seenBy = new int[nodes];
        Arrays.fill(seenBy, -1);
        int[] queue = new int[nodes];
        List<Cycle> cycles = new ArrayList<>();
        // Transaction nodes come first: each witness starts at its component's first transaction.
        for (int v = 0; v < transactions.length; v++) {
            int c = component[v];
            if (componentSize[c] > 1 && !witnessed[c]) {
                witnessed[c] = true;
                cycles.add(shortestCycleThrough(v, component, parentEdge, seenBy, queue));
            }
        }
        return cycles;
    }

    /** Breadth-first search from {@code start} inside its component back to {@code start}. */
    private Cycle shortestCycleThrough(int start, int[] component, int[] parentEdge, int[] seenBy, int[] queue) {
        int head = 0;
        int tail = 0;
        queue[tail++] = start;
        seenBy[start] = start;
        int closing = -1;
        search:
        while (head < tail) {
            int v = queue[head++];
            for (int e = offsets[v]; e < offsets[v + 1]; e++) {
                int w = targets[e];
                if (w == start) {
                    closing = e;
                    parentEdge[start] = e;
                    break search;
                }
                if (component[w] == component[start] && seenBy[w] != start) {
                    seenBy[w] = start;
                    parentEdge[w] = e;
                    queue[tail++] = w;
                }
            }
        }
        if (closing < 0) {
            throw new IllegalStateException("no cycle through node " + start + " of a cyclic component");
        }
        List<Integer> path = new ArrayList<>();
        int v = start;
        do {
            int e = parentEdge[v];
            path.add(e);
            v = source(e);
        } while (v != start);
        Collections.reverse(path);
        return new Cycle(compress(path));
    }

    /** Edges through real-time points become one real-time edge between the transactions around them. */
    private List<Dependency> compress(List<Integer> path) {
        List<Dependency> dependencies = new ArrayList<>();
        int i = 0;
        while (i < path.size()) {
            int e = path.get(i);
            int from = source(e);
            int to = targets[e];
            while (to >= transactions.length) {
                e = path.get(++i);
                to = targets[e];
            }
            DependencyKind kind = KINDS[kinds[e]];
            dependencies.add(kind == DependencyKind.REAL_TIME
                ? new Dependency(transactions[from], transactions[to], kind, GlobalAddress.NULL, -1)
                : new Dependency(transactions[from], transactions[to], kind, addresses[e], versions[e]));
            i++;
        }
        return dependencies;
    }

    /** The node an edge leaves: the v with offsets[v] <= e < offsets[v + 1]. */
    private int source(int e) {
        int low = 0;
        int high = nodes - 1;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (offsets[mid] <= e) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** Tarjan's algorithm, iterative (histories are too deep for recursion): component id per node. */
    private int[] stronglyConnectedComponents() {
        int[] index = new int[nodes];
        int[] lowLink = new int[nodes];
        Arrays.fill(index, -1);
        boolean[] onStack = new boolean[nodes];
        int[] stack = new int[nodes];
        int stackSize = 0;
        int[] callNode = new int[nodes];
        int[] callEdge = new int[nodes];
        int[] component = new int[nodes];
        int nextIndex = 0;
        int components = 0;
        for (int root = 0; root < nodes; root++) {
            if (index[root] >= 0) {
                continue;
            }
            int depth = 0;
            callNode[0] = root;
            callEdge[0] = offsets[root];
            index[root] = lowLink[root] = nextIndex++;
            stack[stackSize++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int v = callNode[depth];
                if (callEdge[depth] < offsets[v + 1]) {
                    int w = targets[callEdge[depth]++];
                    if (index[w] < 0) {
                        index[w] = lowLink[w] = nextIndex++;
                        stack[stackSize++] = w;
                        onStack[w] = true;
                        depth++;
                        callNode[depth] = w;
                        callEdge[depth] = offsets[w];
                    } else if (onStack[w]) {
                        lowLink[v] = Math.min(lowLink[v], index[w]);
                    }
                    continue;
                }
                if (lowLink[v] == index[v]) {
                    int w;
                    do {
                        w = stack[--stackSize];
                        onStack[w] = false;
                        component[w] = components;
                    } while (w != v);
                    components++;
                }
                depth--;
                if (depth >= 0) {
                    int parent = callNode[depth];
                    lowLink[parent] = Math.min(lowLink[parent], lowLink[v]);
                }
            }
        }
        return component;
    }

    /** Edges as they are found, before they are grouped by source. */
    static final class Edges {
        private int[] from = new int[1024];
        private int[] to = new int[1024];
        private byte[] kind = new byte[1024];
        private long[] address = new long[1024];
        private long[] version = new long[1024];
        private int size;

        void add(int fromNode, int toNode, DependencyKind edgeKind, long edgeAddress, long edgeVersion) {
            if (size == from.length) {
                int capacity = size * 2;
                from = Arrays.copyOf(from, capacity);
                to = Arrays.copyOf(to, capacity);
                kind = Arrays.copyOf(kind, capacity);
                address = Arrays.copyOf(address, capacity);
                version = Arrays.copyOf(version, capacity);
            }
            from[size] = fromNode;
            to[size] = toNode;
            kind[size] = (byte) edgeKind.ordinal();
            address[size] = edgeAddress;
            version[size] = edgeVersion;
            size++;
        }
    }
}
