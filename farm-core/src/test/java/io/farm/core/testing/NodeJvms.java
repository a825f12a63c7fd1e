package io.farm.core.testing;

import io.farm.core.region.RegionStore;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The node JVMs of one test, as a JUnit extension:
 * {@code @RegisterExtension final NodeJvms nodes = new NodeJvms();}. After each test it kills
 * every node still running, prints the log tails of all nodes if the test failed, and deletes
 * the logs.
 */
public final class NodeJvms implements AfterEachCallback {
    private final List<NodeJvm> started = new ArrayList<>();
    private Path logDir;

    /** Starts a node JVM running {@code mainClass} with {@code args}. */
    public NodeJvm start(String name, Class<?> mainClass, String... args) {
        try {
            if (logDir == null) {
                logDir = Files.createTempDirectory("farm-node-logs-");
            }
            Path log = logDir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + started.size() + ".log");
            NodeJvm node = NodeJvm.start(name, log, mainClass, List.of(args));
            started.add(node);
            return node;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for node logs", e);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            for (NodeJvm node : started) {
                node.close();
            }
            if (context.getExecutionException().isPresent()) {
                for (NodeJvm node : started) {
                    System.err.println(node.logTail());
                }
            }
        } finally {
            started.clear();
            if (logDir != null) {
                RegionStore.deleteTree(logDir);
                logDir = null;
            }
        }
    }
}
