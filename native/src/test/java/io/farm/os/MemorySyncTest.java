package io.farm.os;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemorySyncTest {
    private static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        return bytes;
    }

    private static byte[] readThroughTheFile(Path file, long offset, int length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(length);
            while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
                // read until full
            }
            return buffer.array();
        }
    }

    @Test
    void syncedWritesOfAnUnalignedSliceAreReadBackThroughTheFile(@TempDir Path directory) throws IOException {
        try (SharedMapping mapping = new SharedMapping(directory, 64 * 1024)) {
            byte[] written = pattern(10_000);
            MemorySegment slice = mapping.memory().asSlice(5_000, written.length); // starts inside a page
            MemorySegment.copy(written, 0, slice, JAVA_BYTE, 0, written.length);
            MemorySync.sync(slice);
            assertArrayEquals(written, readThroughTheFile(mapping.file(), 5_000, written.length));
        }
    }

    @Test
    void scheduledSyncOfAMappingSucceedsAndTheFileHoldsTheBytes(@TempDir Path directory) throws IOException {
        try (SharedMapping mapping = new SharedMapping(directory, 16 * 1024)) {
            byte[] written = pattern(16 * 1024);
            MemorySegment.copy(written, 0, mapping.memory(), JAVA_BYTE, 0, written.length);
            MemorySync.scheduleSync(mapping.memory());
            assertArrayEquals(written, readThroughTheFile(mapping.file(), 0, written.length));
        }
    }

    @Test
    void syncOfUnmappedMemoryNamesTheCallAndTheErrno() {
        // The second page of the address space is never mapped (vm.mmap_min_addr).
        MemorySegment unmapped = MemorySegment.ofAddress(Libc.PAGE_SIZE).reinterpret(Libc.PAGE_SIZE);
        NativeCallException e = assertThrows(NativeCallException.class, () -> MemorySync.sync(unmapped));
        assertEquals(Libc.ENOMEM, e.errno());
        assertTrue(e.getMessage().startsWith("msync(0x" + Long.toHexString(Libc.PAGE_SIZE) + ", " + Libc.PAGE_SIZE
            + ", MS_SYNC) failed: errno 12 (Cannot allocate memory); part of the range is not mapped"), e.getMessage());
    }

    @Test
    void syncOfAHeapSegmentIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MemorySync.sync(MemorySegment.ofArray(new byte[16])));
        assertTrue(e.getMessage().contains("needs native memory"), e.getMessage());
    }
}
