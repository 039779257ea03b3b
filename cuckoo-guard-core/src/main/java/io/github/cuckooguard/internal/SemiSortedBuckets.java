package io.github.cuckooguard.internal;

/**
 * The semi-sorted bucket codec of a {@link Table} (Fan et al., "Cuckoo Filter: Practically Better
 * Than Bloom", CoNEXT 2014, §5.2): buckets of 4 slots of {@code f}-bit fingerprints stored in
 * {@code 4·(f − 1)} bits instead of {@code 4·f}, one bit saved per slot. Used instead of {@link
 * PackedBuckets}' layout for the tables of a filter built with {@code semiSorted()} whose
 * fingerprints are at most 16 bits wide ({@link #applies}); it works on the same {@code long[]} and
 * the same seqlock stamps, and {@link Table} keeps the write protocol.
 *
 * <pre>
 * Layout
 *   A slot's fingerprint is split into its high 4 bits (the nibble) and its low r = f − 4 bits.
 *   The four fingerprints of a bucket are kept sorted (ascending, so an empty slot, 0, comes
 *   first), which sorts their nibbles: a sorted 4-tuple of nibbles is one of C(16 + 4 − 1, 4) =
 *   3,876 multisets, ranked in 12 bits (combinatorial number system: with c_i = n_i + i, strictly
 *   increasing, rank = C(c0, 1) + C(c1, 2) + C(c2, 3) + C(c3, 4)). A bucket is the B = 12 + 4·r =
 *   4·f − 4 bits
 *     bits [0, 12)            rank of the sorted nibbles
 *     bits [12 + j·r, … + r)  low bits of the j-th smallest fingerprint
 *   and bucket i occupies bits [i·B, (i+1)·B) of the little-endian bit string of data[], with one
 *   spare word at the end, so any bucket (B ≤ 60) is read as two plain words, a shift and a mask.
 *
 * Lookup
 *   The rank indexes DECODE (4,096 longs, 32 KiB, shared by every table: entries past 3,875,
 *   which only a torn read can produce, decode to 0 and the reader retries anyway), which holds
 *   the nibbles at bits 16·j + 12; shifted right by 12 − r they sit at the top of 16-bit lanes,
 *   the low bits are deposited below them, and the query is matched against the four 16-bit lanes
 *   at once (the SWAR zero-lane test of PackedBuckets).
 *
 * Writes
 *   Every write decodes the bucket, replaces one fingerprint by another (0 for a delete, 0 → fp
 *   for an add), sorts and re-encodes: all four slots may change bits, so a write is one store if
 *   the bucket lies in one word and two if it spans two ({@link #spans}); Table stamps the
 *   second kind like a spanning slot of PackedBuckets. Slot positions are not stable across
 *   writes (sorting moves them), so writes name the fingerprint they replace, not a slot index.
 * </pre>
 */
final class SemiSortedBuckets {

  /** Slots per bucket: the layout is defined for 4. */
  static final int SLOTS = 4;

  /** Sorted 4-tuples of nibbles: C(19, 4). */
  static final int COMBINATIONS = 3876;

  /** Bits of a bucket's nibble rank. */
  static final int RANK_BITS = 12;

  /** Widest fingerprint the layout stores: a decoded slot fills one 16-bit lane. */
  static final int MAX_BITS = 16;

  private static final long LOWS16 = 0x0001_0001_0001_0001L;
  private static final long HIGHS16 = 0x8000_8000_8000_8000L;
  private static final long LOW15 = 0x7FFF_7FFF_7FFF_7FFFL;

  /** C(n, k) for n &lt; 20, k ≤ 4. */
  private static final int[][] BINOMIAL = new int[20][5];

  /** Rank to nibbles: nibble j of the sorted tuple at bits 16·j + 12. */
  private static final long[] DECODE = new long[1 << RANK_BITS];

  static {
    for (int n = 0; n < 20; n++) {
      BINOMIAL[n][0] = 1;
      for (int k = 1; k <= 4; k++) {
        BINOMIAL[n][k] = n == 0 ? 0 : BINOMIAL[n - 1][k - 1] + BINOMIAL[n - 1][k];
      }
    }
    for (int a = 0; a < 16; a++) {
      for (int b = a; b < 16; b++) {
        for (int c = b; c < 16; c++) {
          for (int d = c; d < 16; d++) {
            DECODE[rank(a, b, c, d)] =
                ((long) a << 12) | ((long) b << 28) | ((long) c << 44) | ((long) d << 60);
          }
        }
      }
    }
  }

  final int fingerprintBits;
  final int lowBits;
  final int bucketBits;
  final long lowMask;
  final long bucketMask;
  private final int nibbleShift;
  private final int s1;
  private final int s2;
  private final int s3;
  private final long m1;
  private final long m2;
  private final long m3;
  final long[] data;

  /**
   * The codec over {@code data}, which must hold {@link Table#wordCount}(f − 1, 4, buckets) words.
   *
   * @param f fingerprint bits in [4, 16]
   */
  SemiSortedBuckets(int f, long[] data) {
    if (f < 4 || f > MAX_BITS) {
      throw new IllegalArgumentException("semi-sorted fingerprint bits " + f + " outside [4, 16]");
    }
    this.fingerprintBits = f;
    this.lowBits = f - 4;
    this.bucketBits = RANK_BITS + SLOTS * lowBits;
    this.lowMask = (1L << lowBits) - 1;
    this.bucketMask = (1L << bucketBits) - 1;
    this.nibbleShift = 12 - lowBits;
    this.s1 = 16 - lowBits;
    this.s2 = 32 - 2 * lowBits;
    this.s3 = 48 - 3 * lowBits;
    this.m1 = lowMask << 16;
    this.m2 = lowMask << 32;
    this.m3 = lowMask << 48;
    this.data = data;
  }

  /** True if a table of {@code f}-bit fingerprints in {@code b}-slot buckets can be semi-sorted. */
  static boolean applies(int f, int b) {
    return b == SLOTS && f >= 4 && f <= MAX_BITS;
  }

  /** The rank of the sorted nibbles {@code a ≤ b ≤ c ≤ d}, in [0, 3876). */
  static int rank(int a, int b, int c, int d) {
    return BINOMIAL[a][1] + BINOMIAL[b + 1][2] + BINOMIAL[c + 2][3] + BINOMIAL[d + 3][4];
  }

  /** Nibble {@code j} (0 = smallest) of rank {@code r}; any r in [0, 4096). */
  static int nibble(int r, int j) {
    return (int) (DECODE[r] >>> (16 * j + 12)) & 0xF;
  }

  // ---- bucket words ----

  /** The {@link #bucketBits} bits of {@code bucket}: two plain reads, a shift and a mask. */
  long read(long bucket) {
    long pos = bucket * bucketBits;
    int w = (int) (pos >>> 6);
    int off = (int) pos & 63;
    return ((data[w] >>> off) | ((data[w + 1] << 1) << (63 - off))) & bucketMask;
  }

  /** True if {@code bucket} spans two words, so a write of it takes two stores. */
  boolean spans(long bucket) {
    long pos = bucket * bucketBits;
    return ((int) pos & 63) + bucketBits > 64;
  }

  /** Changes {@code bucket} from {@code oldBits} to {@code newBits}: one or two release stores. */
  private void store(long bucket, long oldBits, long newBits) {
    long pos = bucket * bucketBits;
    int w = (int) (pos >>> 6);
    int off = (int) pos & 63;
    long delta = oldBits ^ newBits;
    PackedBuckets.LONGS.setRelease(data, w, data[w] ^ (delta << off));
    if (off + bucketBits > 64) {
      PackedBuckets.LONGS.setRelease(data, w + 1, data[w + 1] ^ (delta >>> (64 - off)));
    }
  }

  // ---- codec ----

  /**
   * The four fingerprints of bucket bits {@code x} in 16-bit lanes, lane j the j-th smallest (0 for
   * an empty slot).
   */
  long lanes(long x) {
    long low = x >>> RANK_BITS;
    long nibbles = DECODE[(int) x & ((1 << RANK_BITS) - 1)] >>> nibbleShift;
    return nibbles | (low & lowMask) | ((low << s1) & m1) | ((low << s2) & m2) | ((low << s3) & m3);
  }

  /** Bucket bits of four fingerprints given in ascending order. */
  long encode(long f0, long f1, long f2, long f3) {
    int r = lowBits;
    int rank = rank((int) (f0 >>> r), (int) (f1 >>> r), (int) (f2 >>> r), (int) (f3 >>> r));
    return rank
        | ((f0 & lowMask) << RANK_BITS)
        | ((f1 & lowMask) << (RANK_BITS + r))
        | ((f2 & lowMask) << (RANK_BITS + 2 * r))
        | ((f3 & lowMask) << (RANK_BITS + 3 * r));
  }

  /** Bucket bits of four fingerprints in any order. */
  long encodeUnsorted(long a, long b, long c, long d) {
    // A sorting network of five compare-exchanges.
    long t;
    if (a > b) {
      t = a;
      a = b;
      b = t;
    }
    if (c > d) {
      t = c;
      c = d;
      d = t;
    }
    if (a > c) {
      t = a;
      a = c;
      c = t;
    }
    if (b > d) {
      t = b;
      b = d;
      d = t;
    }
    if (b > c) {
      t = b;
      b = c;
      c = t;
    }
    return encode(a, b, c, d);
  }

  // ---- the operations Table uses (reads plain and validated by the caller; writes locked) ----

  /** The {@code j}-th smallest fingerprint of {@code bucket} (0: empty). */
  long slot(long bucket, int j) {
    return (lanes(read(bucket)) >>> (16 * j)) & 0xFFFF;
  }

  /** True if some slot of {@code b1} or {@code b2} holds {@code fp} (not 0). */
  boolean matches(long b1, long b2, long fp) {
    long rep = fp * LOWS16;
    long x = lanes(read(b1)) ^ rep;
    long y = lanes(read(b2)) ^ rep;
    return ((((x - LOWS16) & ~x) | ((y - LOWS16) & ~y)) & HIGHS16) != 0;
  }

  /** Slots of {@code bucket} holding {@code fp}, exactly (the carry-free zero-lane count). */
  int copies(long bucket, long fp) {
    long x = lanes(read(bucket)) ^ (fp * LOWS16);
    return Long.bitCount(~(((x & LOW15) + LOW15) | x) & HIGHS16);
  }

  /** A slot of {@code bucket} holding {@code fp} (0: an empty one), or -1. */
  int slotOf(long bucket, long fp) {
    long x = lanes(read(bucket)) ^ (fp * LOWS16);
    long z = ~(((x & LOW15) + LOW15) | x) & HIGHS16;
    return z == 0 ? -1 : Long.numberOfTrailingZeros(z) >>> 4;
  }

  /** 0 if {@code bucket} has an empty slot (empty slots sort first), else -1. */
  int freeSlot(long bucket) {
    return (lanes(read(bucket)) & 0xFFFF) == 0 ? 0 : -1;
  }

  /**
   * Replaces one copy of {@code oldFp} in {@code bucket} by {@code newFp} (either may be 0: an add
   * replaces an empty slot, a delete empties one), re-sorted and re-encoded; the caller has checked
   * that the bucket holds {@code oldFp}. One or two release stores ({@link #spans}).
   */
  void replace(long bucket, long oldFp, long newFp) {
    long x = read(bucket);
    long l = lanes(x);
    long f0 = l & 0xFFFF;
    long f1 = (l >>> 16) & 0xFFFF;
    long f2 = (l >>> 32) & 0xFFFF;
    long f3 = l >>> 48;
    if (f0 == oldFp) {
      f0 = newFp;
    } else if (f1 == oldFp) {
      f1 = newFp;
    } else if (f2 == oldFp) {
      f2 = newFp;
    } else if (f3 == oldFp) {
      f3 = newFp;
    } else {
      throw new IllegalStateException("bucket " + bucket + " does not hold " + oldFp);
    }
    store(bucket, x, encodeUnsorted(f0, f1, f2, f3));
  }
}
