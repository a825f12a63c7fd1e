/**
 * The operating-system boundary of farm, reached through {@code java.lang.foreign} without any
 * C code: thread affinity, huge pages, locking and syncing of mapped memory.
 *
 * <p>Linux only, on x86_64 and aarch64 (the Linux constants used here are the same on both).
 * On any other platform the first use of a class of this package fails with an
 * {@link java.lang.UnsupportedOperationException} naming the platform. A failed system call
 * surfaces as a {@link io.farm.os.NativeCallException} naming the call, its errno and the
 * errno's text. The JVM must allow native access to the module or class path that holds this
 * package ({@code --enable-native-access=ALL-UNNAMED}).
 */
package io.farm.os;
