package io.farm.os;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LibcTest {
    @Test
    void aFailedCallNamesTheCallItsErrnoAndTheErrnoText() {
        // msync refuses an address that is not page aligned with EINVAL.
        NativeCallException e = assertThrows(NativeCallException.class,
            () -> Libc.msync(Libc.PAGE_SIZE + 1, 1, Libc.MS_SYNC));
        assertEquals(Libc.EINVAL, e.errno());
        assertEquals("Invalid argument", e.errnoText());
        assertEquals("msync(0x" + Long.toHexString(Libc.PAGE_SIZE + 1) + ", 1, MS_SYNC)", e.call());
        assertTrue(e.getMessage().contains("msync(0x") && e.getMessage().contains("failed: errno 22 (Invalid argument)"),
            e.getMessage());
    }

    @Test
    void pageSizeIsAPowerOfTwoOfAtLeast4KiB() {
        assertEquals(1, Long.bitCount(Libc.PAGE_SIZE));
        assertTrue(Libc.PAGE_SIZE >= 4096);
    }

    @Test
    void strerrorGivesTheTextOfAnErrno() {
        assertEquals("Cannot allocate memory", Libc.strerror(Libc.ENOMEM));
    }
}
