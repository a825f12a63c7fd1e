package io.farm.core.testing;

import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Temporary directories under {@code /dev/shm}, where farm keeps its cluster data by default,
 * or under the default temporary directory where there is no writable {@code /dev/shm}:
 * {@code @TempDir(factory = ShmTempDirs.class)}. JUnit deletes them after the test.
 */
public final class ShmTempDirs implements TempDirFactory {
    private static final Path DEV_SHM = Path.of("/dev/shm");

    @Override
    public Path createTempDirectory(AnnotatedElementContext elementContext, ExtensionContext extensionContext) throws IOException {
        return newDirectory();
    }

    /**
     * A new directory where {@code @TempDir(factory = ShmTempDirs.class)} would make one, for code
     * outside JUnit's reach (jqwik properties, node mains); the caller deletes it.
     */
    public static Path newDirectory() throws IOException {
        if (Files.isDirectory(DEV_SHM) && Files.isWritable(DEV_SHM)) {
            return Files.createTempDirectory(DEV_SHM, "farm-test-");
        }
        return Files.createTempDirectory("farm-test-");
    }
}
