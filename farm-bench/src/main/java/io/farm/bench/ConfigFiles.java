package io.farm.bench;

import io.farm.core.node.ClusterConfig;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a launcher leaves the cluster configuration for its node processes. */
public final class ConfigFiles {
    private ConfigFiles() {
    }

    /** Writes {@code config} to {@code cluster.properties} in its data directory and returns the file. */
    public static Path write(ClusterConfig config) throws IOException {
        Files.createDirectories(config.dataDir());
        Path file = config.dataDir().resolve("cluster.properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            config.toProperties().store(out, "farm cluster " + config.name());
        }
        return file;
    }
}
