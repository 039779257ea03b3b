package io.github.cuckooguard.internal;

/** Sizing math: the fingerprint width for a target fpp, and the bucket count for a capacity. */
public final class Sizing {

  /*
   * Implementation notes
   *
   * A key that was never added matches a slot with probability 1/(2^f − 1) (fingerprints are
   * uniform on [1, 2^f − 1]) and is compared with the 2·b slots of its two buckets, of which a
   * share α (the load factor) is occupied, so
   *     fpp ≈ 1 − (1 − 1/(2^f − 1))^(2·b·α)  ≤  2·b·α / (2^f − 1).
   * For a target fpp at the design load α this gives f = ⌈log2(2·b·α / fpp)⌉ (Fan et al.,
   * "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014, §5.1, with α made explicit).
   *
   * α is the load a table of that bucket size reaches before its first failed insert with a kick
   * search, less a margin: b = 2 → 0.84, b = 4 → 0.95, b = 8 → 0.98, the loads the paper reports.
   * The loads measured with this implementation are a little higher (benchmarks/SIZING.md).
   *
   * Buckets: n = ⌈expected / (b · α)⌉ rounded up to an even number (the alternate-bucket function
   * needs an even n, nothing more), so the table costs f/α bits per item at the design load, for
   * any expected count, instead of up to 2× that when n is rounded to a power of two.
   */

  /** The load factor a table of 4-slot buckets is sized for. */
  public static final double DESIGN_LOAD = 0.95;

  /**
   * The load a table of {@code bucketSize}-slot buckets is sized for (see the implementation
   * notes).
   */
  public static double designLoad(int bucketSize) {
    return bucketSize <= 2 ? 0.84 : bucketSize == 4 ? DESIGN_LOAD : 0.98;
  }

  /** Longest array the JVMs in use allocate (a few header words below Integer.MAX_VALUE). */
  static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 16;

  /**
   * Share of {@link Runtime#maxMemory()} one filter's fingerprint storage may take unless a bound
   * is set: a half, so that a filter and its replacement being rebuilt fit side by side.
   */
  public static final double DEFAULT_MAX_BYTES_FRACTION = 0.5;

  private Sizing() {}

  /** {@link #DEFAULT_MAX_BYTES_FRACTION} of this JVM's maximum heap. */
  public static long defaultMaxBytes() {
    long max = Runtime.getRuntime().maxMemory();
    return max == Long.MAX_VALUE ? Long.MAX_VALUE : (long) (max * DEFAULT_MAX_BYTES_FRACTION);
  }

  /**
   * Bytes of a table of {@code m} segments of {@code n} buckets ({@code b} slots of {@code f} bits,
   * plus the spare word), or -1 if it is more than one Java array can hold.
   */
  public static long tableBytes(int f, int b, int n, long m) {
    return tableBytes(f, b, n, m, false);
  }

  /** {@link #tableBytes(int, int, int, long)}, semi-sorted where the layout applies. */
  public static long tableBytes(int f, int b, int n, long m, boolean semiSorted) {
    long words = Table.wordCountOrMinus1(Table.storedBits(f, b, semiSorted), b, n, m);
    return words < 0 ? -1 : words * Long.BYTES;
  }

  /**
   * Bytes of the first table of a filter sized for {@code expected} keys, or -1 if its bucket count
   * exceeds an int or its words an array.
   */
  public static long firstTableBytes(long expected, int f, int b) {
    return firstTableBytes(expected, f, b, false);
  }

  /** {@link #firstTableBytes(long, int, int)}, semi-sorted where the layout applies. */
  public static long firstTableBytes(long expected, int f, int b, boolean semiSorted) {
    long n = buckets(expected, b);
    return n < 0 ? -1 : tableBytes(f, b, (int) n, 1, semiSorted);
  }

  /**
   * The largest expected count in [1, {@code limit}] whose first table fits an array and {@code
   * maxBytes}, or 0 if none does. The table grows monotonically with the count, so a binary search
   * over it is exact.
   */
  public static long maxExpectedInsertions(int f, int b, long maxBytes, long limit) {
    return maxExpectedInsertions(f, b, maxBytes, limit, false);
  }

  /** {@link #maxExpectedInsertions(int, int, long, long)}, semi-sorted where it applies. */
  public static long maxExpectedInsertions(
      int f, int b, long maxBytes, long limit, boolean semiSorted) {
    long lo = 0;
    long hi = limit;
    while (lo < hi) {
      long mid = lo + (hi - lo + 1) / 2;
      long bytes = firstTableBytes(mid, f, b, semiSorted);
      if (bytes >= 0 && bytes <= maxBytes) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Fingerprint bits for a target fpp, or -1 if 16 bits are not enough. At least 4. */
  public static int fingerprintBits(double fpp, int bucketSize) {
    double bits = Math.ceil(log2(2 * bucketSize * designLoad(bucketSize) / fpp));
    if (bits > 16) {
      return -1;
    }
    return (int) Math.max(4, bits);
  }

  /** The smallest fpp 16-bit fingerprints reach at the design load. */
  public static double minFpp(int bucketSize) {
    return 2 * bucketSize * designLoad(bucketSize) / (1 << 16);
  }

  /**
   * Widest fingerprint of any sub-filter: the low 32 bits of the hash (the bucket uses the high).
   */
  public static final int MAX_BITS = 32;

  /**
   * The least share of the target fpp that the sub-filters added by growth may take together:
   * 1/{@value}. See {@link #growthBits}.
   */
  public static final int GROWTH_SHARE_FLOOR = 64;

  /**
   * An upper bound on the fpp of one table of {@code f}-bit fingerprints at any load, full
   * included: each of the 2·b slots a key is compared with matches with probability at most 1/(2^f
   * − 1), so the union bound gives 2·b / (2^f − 1).
   */
  public static double fppBound(int f, int bucketSize) {
    return 2.0 * bucketSize / ((1L << f) - 1);
  }

  /**
   * Fingerprint bits of the first sub-filter added by growth; sub-filter {@code t ≥ 1} then has
   * {@link #subFilterBits} = min({@value #MAX_BITS}, g + t − 1).
   *
   * <pre>
   * A lookup of a key never added probes every sub-filter, so a grown filter's fpp is at most the
   * sum of theirs (union bound). The first sub-filter keeps its f0 = ⌈log2(2·b·α / fpp)⌉ bits (a
   * filter that never grows pays nothing for growth); the ones added by growth share a budget
   *     G = max(fpp − fppBound(f0), fpp / 64),
   * what the first sub-filter leaves of the target even when it is completely full (growth fills
   * the older sub-filters' free slots too), but at least 1/64 of the target. g is the least width
   * whose series fits it:
   *     Σ_{t = 1}^{31} fppBound(min(32, g + t − 1))  ≤  G,
   * each sub-filter one bit wider than the one before, so each takes half the previous share, as
   * in scalable Bloom filters (Almeida et al., "Scalable Bloom Filters", IPL 2007), and the sum
   * stays below 2 · fppBound(g) however far the filter grows. So the grown filter's fpp is at most
   * fppBound(f0) + G: at most the target whenever the full first sub-filter leaves 1/64 of it
   * (fpp = 0.001: f0 = 13, fppBound(13) = 0.000977, G = 2.3e-5, g = 20; fpp = 0.01: f0 = 10, G =
   * 0.0022, g = 13), and at most fppBound(f0) + fpp / 64 otherwise.
   * </pre>
   *
   * @param fpp the target; for a filter configured by fingerprint bits, the fpp they give at the
   *     design load
   */
  public static int growthBits(double fpp, int firstBits, int bucketSize) {
    double budget = Math.max(fpp - fppBound(firstBits, bucketSize), fpp / GROWTH_SHARE_FLOOR);
    for (int g = firstBits + 1; g < MAX_BITS; g++) {
      if (grownFppBound(g, bucketSize) <= budget) {
        return g;
      }
    }
    return MAX_BITS;
  }

  /** The union bound on the fpp of every sub-filter growth may add, the first of {@code g} bits. */
  static double grownFppBound(int g, int bucketSize) {
    double sum = 0;
    for (int t = 1; t < FilterCore.MAX_SUB_FILTERS; t++) {
      sum += fppBound(subFilterBits(0, g, t), bucketSize);
    }
    return sum;
  }

  /**
   * Fingerprint bits of sub-filter {@code t}: {@code firstBits} for the first, min({@value
   * #MAX_BITS}, growthBits + t − 1) for those growth adds (never narrower than an older one, which
   * removes across sub-filters rely on, see FilterCore).
   */
  public static int subFilterBits(int firstBits, int growthBits, int t) {
    return t == 0 ? firstBits : Math.min(MAX_BITS, growthBits + t - 1);
  }

  /** Expected fpp of a full table (load α) with these fingerprints. */
  public static double fppAtDesignLoad(int fingerprintBits, int bucketSize) {
    return 1
        - Math.pow(
            1 - 1.0 / ((1L << fingerprintBits) - 1), 2 * bucketSize * designLoad(bucketSize));
  }

  /**
   * Even bucket count for {@code expected} items at the design load, or -1 if it exceeds an int.
   */
  public static long buckets(long expected, int bucketSize) {
    long n = (long) Math.ceil(expected / (bucketSize * designLoad(bucketSize)));
    n = Math.max(2, n + (n & 1));
    return n > Integer.MAX_VALUE - 1 ? -1 : n;
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }
}
