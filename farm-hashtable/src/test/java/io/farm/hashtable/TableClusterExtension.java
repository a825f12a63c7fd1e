package io.farm.hashtable;

import io.farm.core.cluster.Node;
import io.farm.core.region.RegionStore;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@link TableCluster} shared by the tests of one class ({@code @RegisterExtension} on a static
 * field): started before them in a temporary directory of its own, closed and removed after.
 */
final class TableClusterExtension implements BeforeAllCallback, AfterAllCallback {
    private final String name;
    private Path dataDir;
    private TableCluster started;

    /** @param name the cluster's name */
    TableClusterExtension(String name) {
        this.name = name;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dataDir = Files.createTempDirectory("farm-" + name);
        started = TableCluster.start(name, dataDir);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            started.close();
        } finally {
            RegionStore.deleteTree(dataDir);
        }
    }

    /** Node {@code id} of the cluster. */
    Node node(int id) {
        return started.cluster().node(id);
    }

    /** The hashtables of node {@code id}. */
    HashTables tables(int id) {
        return started.tables().get(id);
    }
}
