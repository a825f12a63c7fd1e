package io.farm.os;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** A sparse temporary file mapped shared for a test; closing unmaps and deletes it. */
final class SharedMapping implements AutoCloseable {
    private final Path file;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;

    SharedMapping(Path directory, long size) throws IOException {
        file = Files.createTempFile(directory, "farm-native-test", ".map");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), size - 1);
            memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        }
    }

    Path file() {
        return file;
    }

    MemorySegment memory() {
        return memory;
    }

    /**
     * The value of {@code key} (e.g. {@code "Locked:"}) in the /proc/self/smaps entry of this mapping,
     * read independently of the code under test.
     */
    String smapsField(String key) {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
            int header = 0;
            while (!lines.get(header).endsWith(" " + file)) {
                header++;
            }
            for (int i = header + 1; ; i++) {
                String[] fields = lines.get(i).split("\\s+");
                if (fields[0].equals(key)) {
                    return fields[1];
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        arena.close();
        Files.delete(file);
    }
}
