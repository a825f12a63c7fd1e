package io.farm.os;

/**
 * A system call that failed: names the call with its arguments, the errno it set and the
 * errno's text ({@code strerror}), and, where one is known, what to change.
 */
public final class NativeCallException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;
    private final String errnoText;

    /**
     * @param call      the call with its arguments, e.g. {@code "mlock(0x7f00c0000000, 65536)"}
     * @param errno     the errno the call set
     * @param errnoText the text {@code strerror} gives for {@code errno}
     * @param hint      what to change, or {@code null} when nothing more is known
     */
    NativeCallException(String call, int errno, String errnoText, String hint) {
        super(call + " failed: errno " + errno + " (" + errnoText + ")" + (hint == null ? "" : "; " + hint));
        this.call = call;
        this.errno = errno;
        this.errnoText = errnoText;
    }

    /**
     * The same failure with a hint of what to change appended to the message.
     *
     * @param hint what to change
     * @return a new exception for the same call and errno
     */
    NativeCallException withHint(String hint) {
        return new NativeCallException(call, errno, errnoText, hint);
    }

    /** The call that failed, with its arguments. */
    public String call() {
        return call;
    }

    /** The errno the call set (e.g. 12 for ENOMEM on Linux). */
    public int errno() {
        return errno;
    }

    /** The text {@code strerror} gives for {@link #errno()}. */
    public String errnoText() {
        return errnoText;
    }
}
