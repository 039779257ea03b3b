package io.github.cuckooguard.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The bucket codec of a {@link Table}: {@code segments × localBuckets} buckets of {@code b} slots
 * of {@code f} bits, bit-packed in a {@code long[]}, and the SWAR matches over them. Holds the
 * fields every lookup reads, all immutable after construction (the words change, the layout does
 * not); {@link Table} adds the write protocol on top.
 *
 * <pre>
 * Layout
 *   bucket i occupies bits [i·b·f, (i+1)·b·f) of the little-endian bit string formed by data[];
 *   slot j of bucket i is bits [i·b·f + j·f, … + f). 0 means empty. One spare word at the end
 *   lets every read fetch the two words around a bucket without a bounds branch, so a bucket of
 *   up to 64 bits (b = 4 and f ≤ 16) is one 64-bit "window": two plain word reads, a shift and
 *   a mask. The fingerprint is then matched against all lanes at once (SWAR zero-lane test,
 *   exact: (x − lows) &amp; ~x &amp; highs ≠ 0 iff some lane of x is 0, with x = window ^ fp·lows).
 *   Buckets wider than 64 bits are read as 2 or 4 windows of b / windows lanes, the fewest whose
 *   lanes fit 64 bits: b = 8 and f in (8, 16] → 2 windows of 4 lanes; b = 4 and f in (16, 32] →
 *   2 of 2; b = 8 and f in (16, 32] → 4 of 2. Widths above 16 bits occur only in sub-filters
 *   added by growth (see FilterCore: their wider fingerprints keep a grown filter's fpp bounded).
 * </pre>
 */
abstract class PackedBuckets extends TablePadHead {

  static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private static final int STAMP_STRIPES = 1024;

  /** Unused stamps at each end of the stamp array: no neighbour object shares its lines. */
  static final int STAMP_PAD = 8;

  final int fingerprintBits;
  final int bucketSize;
  final int localBuckets;
  final int segments;
  final long totalBuckets;
  final long[] data;

  final int bucketBits;
  final long slotMask;
  final int half;
  final int windows;
  final int windowBits;
  final long windowMask;

  /** Buckets tile 64-bit words exactly (b·f divides 64): a window is one word read. */
  final boolean aligned;

  final long lows;
  final long highs;

  /** Every bit of a window but the lanes' high bits: for the exact zero-lane count. */
  final long lowParts;

  /**
   * {@link #WORD16} or {@link #HALF8} for a plain-layout table of 4-slot buckets of 16 or 8 bits,
   * whose lookups and adds of a first sub-filter take the specialised paths of {@link Table} (the
   * layout's constants are compiled in, so a lookup reads fewer fields); {@link #GENERAL}
   * otherwise. Here, among the fields lookups read, and not in {@link Table} beside the {@code
   * items} that every add writes.
   */
  final int kind;

  static final int GENERAL = 0;

  /** 4 × 16 bits: bucket i is word i. */
  static final int WORD16 = 1;

  /** 4 × 8 bits: bucket i is the half {@code i & 1} of word {@code i >>> 1}. */
  static final int HALF8 = 2;

  /** Seqlock stamps, one per stripe of buckets; the protocol is in {@link Table}. */
  final long[] stamps;

  final int stampMask;

  /**
   * @param plain the words are laid out as described here (not semi-sorted)
   */
  PackedBuckets(int f, int b, int n, int m, long[] words, boolean plain) {
    this.kind = !plain || b != 4 ? GENERAL : f == 16 ? WORD16 : f == 8 ? HALF8 : GENERAL;
    this.fingerprintBits = f;
    this.bucketSize = b;
    this.localBuckets = n;
    this.segments = m;
    this.totalBuckets = (long) n * m;
    this.bucketBits = b * f;
    this.slotMask = (1L << f) - 1;
    this.half = n >>> 1;
    this.windows = bucketBits <= 64 ? 1 : bucketBits <= 128 ? 2 : 4;
    int lanes = b / windows;
    this.windowBits = lanes * f;
    this.windowMask = windowBits == 64 ? -1L : (1L << windowBits) - 1;
    this.aligned = windows == 1 && 64 % bucketBits == 0;
    long lo = 0;
    for (int i = 0; i < lanes; i++) {
      lo |= 1L << (i * f);
    }
    this.lows = lo;
    this.highs = lo << (f - 1);
    this.lowParts = windowMask & ~highs;
    this.data = words;
    int stripes = (int) Math.min(STAMP_STRIPES, Long.highestOneBit(Math.max(1, totalBuckets)));
    this.stamps = new long[stripes + 2 * STAMP_PAD];
    this.stampMask = stripes - 1;
  }

  /** Index in {@link #stamps} of the stripe that guards {@code bucket}. */
  final int stripe(long bucket) {
    return ((int) bucket & stampMask) + STAMP_PAD;
  }

  // ---- reads (plain; the caller validates them against the stamps or holds the lock) ----

  final long window(long bitPos) {
    int w = (int) (bitPos >>> 6);
    int off = (int) bitPos & 63;
    if (aligned) {
      return (data[w] >>> off) & windowMask;
    }
    return ((data[w] >>> off) | ((data[w + 1] << 1) << (63 - off))) & windowMask;
  }

  final long slot(long bucket, int j) {
    long pos = bucket * bucketBits + (long) j * fingerprintBits;
    int w = (int) (pos >>> 6);
    int off = (int) pos & 63;
    return ((data[w] >>> off) | ((data[w + 1] << 1) << (63 - off))) & slotMask;
  }

  /** True if some slot of {@code b1} or {@code b2} holds {@code fp}. */
  final boolean matches(long b1, long b2, long fp) {
    long rep = fp * lows;
    long p1 = b1 * bucketBits;
    long p2 = b2 * bucketBits;
    long x = window(p1) ^ rep;
    long y = window(p2) ^ rep;
    long hit = ((x - lows) & ~x) | ((y - lows) & ~y);
    if (windows > 1) {
      for (int w = 1; w < windows; w++) {
        long o = (long) w * windowBits;
        x = window(p1 + o) ^ rep;
        y = window(p2 + o) ^ rep;
        hit |= ((x - lows) & ~x) | ((y - lows) & ~y);
      }
    }
    return (hit & highs) != 0;
  }

  /**
   * The first slot of {@code bucket} holding {@code fp} (0: the first empty one), or -1. SWAR on x
   * = window ^ fp·lows: the lowest lane flagged by (x − lows) &amp; ~x &amp; highs is exactly the
   * lowest zero lane of x (a borrow starts only at a zero lane, so it can flag lanes above the
   * first match, never below it).
   */
  final int slotOf(long bucket, long fp) {
    long rep = fp * lows;
    long p = bucket * bucketBits;
    long x = window(p) ^ rep;
    long z = (x - lows) & ~x & highs;
    if (z != 0) {
      return Long.numberOfTrailingZeros(z) / fingerprintBits;
    }
    for (int w = 1; w < windows; w++) {
      x = window(p + (long) w * windowBits) ^ rep;
      z = (x - lows) & ~x & highs;
      if (z != 0) {
        return w * (bucketSize / windows) + Long.numberOfTrailingZeros(z) / fingerprintBits;
      }
    }
    return -1;
  }

  /** The first empty slot of {@code bucket}, or -1. */
  final int freeSlot(long bucket) {
    return slotOf(bucket, 0);
  }

  /**
   * Slots of {@code bucket} holding {@code fp}, exactly. The borrow test of {@link #slotOf} may
   * flag lanes above a match, so this one uses the carry-free form: a lane of x is zero iff neither
   * its low bits plus all-ones-below-the-high-bit carry into the high bit nor the high bit itself
   * is set, i.e. zero lanes = ~(((x &amp; lowParts) + lowParts) | x) &amp; highs (each lane's sum
   * stays below 2^f, so nothing carries into the next lane).
   */
  final int copies(long bucket, long fp) {
    long rep = fp * lows;
    long p = bucket * bucketBits;
    long x = window(p) ^ rep;
    int c = Long.bitCount(~(((x & lowParts) + lowParts) | x) & highs);
    for (int w = 1; w < windows; w++) {
      x = window(p + (long) w * windowBits) ^ rep;
      c += Long.bitCount(~(((x & lowParts) + lowParts) | x) & highs);
    }
    return c;
  }

  // ---- word stores (the caller holds the owner's lock and brackets them as Table says) ----

  /**
   * Changes slot {@code j} of {@code bucket} from {@code oldFp} to {@code newFp}: one or two
   * release stores.
   */
  final void write(long bucket, int j, long oldFp, long newFp) {
    long pos = bucket * bucketBits + (long) j * fingerprintBits;
    int w = (int) (pos >>> 6);
    int off = (int) pos & 63;
    long delta = oldFp ^ newFp;
    LONGS.setRelease(data, w, data[w] ^ (delta << off));
    if (off + fingerprintBits > 64) {
      LONGS.setRelease(data, w + 1, data[w + 1] ^ (delta >>> (64 - off)));
    }
  }

  /**
   * True if slot {@code j} of {@code bucket} spans two words (so a write of it takes two stores).
   */
  final boolean spans(long bucket, int j) {
    long pos = bucket * bucketBits + (long) j * fingerprintBits;
    return ((int) pos & 63) + fingerprintBits > 64;
  }
}
