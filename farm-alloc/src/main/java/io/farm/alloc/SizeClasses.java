package io.farm.alloc;

/**
 * The 256 object size classes of the slab allocators (FaRM NSDI'14 §3.3): every class is a
 * multiple of {@value #GRANULE} bytes, the smallest is {@value #MIN_SIZE} B and the largest
 * {@value #MAX_SIZE} B (1 MiB). An object is allocated in the smallest class that fits it.
 *
 * <h2>How the classes are derived</h2>
 * The worst request for a class {@code c} whose predecessor is {@code p} is {@code p + 64}
 * (requests are counted in multiples of 64 B), wasting {@code (c - p - 64) / c}. For a bound
 * {@code φ} on that waste, the chain
 * <pre>
 *   c[0]   = 64
 *   c[i+1] = max(c[i] + 64, largest multiple of 64 that is &lt;= (c[i] + 64) / (1 - φ))
 *   (capped at 1 MiB)
 * </pre>
 * grows each class as far as the bound allows, so it reaches 1 MiB in the fewest classes for
 * that bound. {@code φ} is then the smallest bound, in units of 2<sup>-24</sup>, for which the
 * chain reaches 1 MiB within {@value #COUNT} classes; the chain then has exactly {@value #COUNT}
 * classes. The result: sizes 64 B .. 2432 B in steps of 64 B, then geometric growth of about
 * 2.6 % per class. Over the 16384 request sizes 64 B, 128 B, .. 1 MiB the fragmentation is
 * 1.26 % on average and 2.55 % at most ({@link #measure()}), within FaRM's 1.8 % and 3.6 %.
 * Requests that are not multiples of 64 B waste more in relative terms when they are small
 * (a 1-byte object takes 64 B).
 *
 * <p>{@link #classOf(int)} is one load from a table indexed by {@code (size - 1) / 64}.
 */
public final class SizeClasses {
    /** Number of size classes. */
    public static final int COUNT = 256;
    /** Every class is a multiple of this many bytes. */
    public static final int GRANULE = 64;
    /** Size of the smallest class, in bytes. */
    public static final int MIN_SIZE = GRANULE;
    /** Size of the largest class and the largest object, in bytes (1 MiB). */
    public static final int MAX_SIZE = 1 << 20;

    private static final int GRANULE_SHIFT = 6;
    private static final int BOUND_SCALE_BITS = 24;

    private static final int[] SIZES = deriveSizes();
    /** Class index (unsigned byte) of the sizes {@code g*64+1 .. (g+1)*64}, indexed by {@code g}. */
    private static final byte[] CLASS_BY_GRANULE = classByGranule(SIZES);

    private SizeClasses() {
    }

    /** The number of size classes ({@value #COUNT}). */
    public static int count() {
        return COUNT;
    }

    /**
     * The smallest size class that fits an object of {@code size} bytes.
     *
     * @param size object size in bytes, 1 .. {@value #MAX_SIZE}
     * @return the class index, 0 .. {@value #COUNT} - 1
     * @throws IllegalArgumentException if {@code size} is outside 1 .. {@value #MAX_SIZE}
     */
    public static int classOf(int size) {
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("object size " + size + " out of range: objects are 1.."
                + MAX_SIZE + " bytes (1 MiB); store larger data as an array of objects");
        }
        return CLASS_BY_GRANULE[(size - 1) >>> GRANULE_SHIFT] & 0xFF;
    }

    /**
     * The size in bytes of a class.
     *
     * @param classIndex 0 .. {@value #COUNT} - 1
     * @return the class size, a multiple of {@value #GRANULE} in {@value #MIN_SIZE} .. {@value #MAX_SIZE}
     * @throws IllegalArgumentException if {@code classIndex} is out of range
     */
    public static int sizeOf(int classIndex) {
        if (classIndex < 0 || classIndex >= COUNT) {
            throw new IllegalArgumentException("size class " + classIndex + " out of range: 0.." + (COUNT - 1));
        }
        return SIZES[classIndex];
    }

    /**
     * Internal fragmentation of the classes, computed exactly over every request size that is a
     * multiple of {@value #GRANULE} from {@value #MIN_SIZE} B to {@value #MAX_SIZE} B. The
     * fragmentation of a request of {@code s} bytes is {@code (sizeOf(classOf(s)) - s) / sizeOf(classOf(s))}.
     */
    public static Fragmentation measure() {
        double sum = 0;
        double maximum = 0;
        int requests = 0;
        for (int size = GRANULE; size <= MAX_SIZE; size += GRANULE) {
            int classSize = SIZES[classOf(size)];
            double waste = (double) (classSize - size) / classSize;
            sum += waste;
            maximum = Math.max(maximum, waste);
            requests++;
        }
        return new Fragmentation(sum / requests, maximum);
    }

    /**
     * Internal fragmentation figures, as fractions (0.018 is 1.8 %).
     *
     * @param average mean over the request sizes measured
     * @param maximum worst over the request sizes measured
     */
    public record Fragmentation(double average, double maximum) {
    }

    private static int[] deriveSizes() {
        long lowest = 0;
        long highest = 1L << BOUND_SCALE_BITS;
        while (highest - lowest > 1) {
            long bound = (lowest + highest) >>> 1;
            if (chainLength(bound) <= COUNT) {
                highest = bound;
            } else {
                lowest = bound;
            }
        }
        int[] sizes = new int[COUNT];
        int size = MIN_SIZE;
        for (int i = 0; i < COUNT; i++) {
            sizes[i] = size;
            size = nextSize(size, highest);
        }
        return sizes;
    }

    /** Classes the chain for {@code bound} (fragmentation bound times 2^24) needs to reach 1 MiB. */
    private static int chainLength(long bound) {
        int classes = 1;
        for (int size = MIN_SIZE; size < MAX_SIZE; size = nextSize(size, bound)) {
            classes++;
        }
        return classes;
    }

    private static int nextSize(int size, long bound) {
        long scale = 1L << BOUND_SCALE_BITS;
        long widest = ((size + (long) GRANULE) * scale / (scale - bound)) & -GRANULE;
        return (int) Math.min(MAX_SIZE, Math.max(size + GRANULE, widest));
    }

    private static byte[] classByGranule(int[] sizes) {
        byte[] table = new byte[MAX_SIZE >>> GRANULE_SHIFT];
        int classIndex = 0;
        for (int granule = 0; granule < table.length; granule++) {
            int largestSizeInGranule = (granule + 1) << GRANULE_SHIFT;
            while (sizes[classIndex] < largestSizeInGranule) {
                classIndex++;
            }
            table[granule] = (byte) classIndex;
        }
        return table;
    }
}
