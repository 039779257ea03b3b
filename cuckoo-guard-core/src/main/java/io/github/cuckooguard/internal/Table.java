package io.github.cuckooguard.internal;

import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * One cuckoo hash table (a sub-filter): {@code segments × localBuckets} buckets of {@code b} slots
 * of {@code f} bits. The pieces live beside it, one responsibility each: the bit-packed layout and
 * its SWAR matches in {@link PackedBuckets}, hash-to-bucket math in {@link BucketIndex}, the kick
 * search in {@link KickPath}, checks of a loaded table in {@link TableAudit}. This class is the
 * write protocol that keeps lock-free reads exact.
 *
 * <pre>
 * Concurrency
 *   Writers are serialised by the owner's lock (one writer at a time per filter). Readers take no
 *   lock. A kick path is searched first (breadth-first, bounded by maxKicks nodes, nothing moved)
 *   and then executed from its free end backwards, each step copying a fingerprint into its new
 *   slot before the slot it came from is overwritten, so every fingerprint is in one of its two
 *   buckets at every instant. That alone does not protect a reader that read bucket A before a
 *   fingerprint arrived there and bucket B after it left, so such writes are bracketed by
 *   striped sequence stamps (a seqlock): the writer makes the stamps of the buckets it writes odd
 *   (for a kick, every bucket on the path), writes, then makes them even again. A reader
 *   re-checks the two stamps it read before the buckets and retries if either was odd or changed,
 *   whatever it found.
 *
 *   Which plain writes need stamps. Keys K and J that share a fingerprint and a bucket pair but
 *   have opposite primary buckets are indistinguishable in the table, so add(J) into A followed
 *   by remove(J), which searches J's primary B first and clears the copy there, moves "K's" copy
 *   from B to A (CollidingKeyChurnHidesNoResidentKeyTest). Inside one bucket that spans two
 *   words the same pair moves a copy between the words: add(J) fills a free slot in the high
 *   word, remove(J) clears the first copy, in the low word, and a reader whose two plain loads
 *   of the bucket ran high word first (the memory model does not order plain loads; nor do ARM
 *   or POWER cores) saw neither copy (DeleteLeavingACopyIsStampedTest). Every such hiding move
 *   ends with a delete of fp that leaves another copy of fp in the pair, so:
 *     - a kick is stamped (it moves fingerprints);
 *     - a delete is stamped if another copy of fp stays in its bucket or in the other bucket;
 *     - a write into a slot that spans two words (f not dividing 64) is stamped, since it takes
 *       two stores and a half-written slot could match another fingerprint
 *       (NoPhantomFingerprintFromAHalfWrittenSlotTest);
 *     - in a semi-sorted table (SemiSortedBuckets) a write re-encodes the whole bucket, moving
 *       the bits of every fingerprint in it, so a write of a bucket that spans two words is
 *       stamped: a reader between its two stores could miss a fingerprint that stays
 *       (SemiSortedReadersDuringKicksTest); a bucket within one word changes in one store, whose
 *       before and after both hold every fingerprint the write keeps, as for a plain slot;
 *     - every add, and every delete of the pair's last copy, is a single-word store without
 *       stamps. An add into a first bucket with room so never reads the second one.
 *   Why a negative answer stays linearizable: suppose the pair held fp at every instant of the
 *   reader's window, from its first stamp load to its last. Copies of fp then left the pair in
 *   that window only by kicks (stamped) or by deletes that left another copy (stamped), since a
 *   delete of the last copy would empty the pair. If no stamped write touched the pair in the
 *   window, copies only arrived there: every copy present at the window's start stayed in its
 *   slot to its end, so every load of that slot, in whatever order, saw it, and the reader found
 *   fp. So a reader that does not retry and finds no fp saw the pair without fp at some instant:
 *   the answer's linearization point. For a resident key the pair never lacks fp (a kick writes
 *   the new copy before clearing the old), so a validated lookup never misses it. Not
 *   bracketing adds and most deletes matters for readers beside a writer: each stamp write
 *   takes a cache line away from them.
 *   count is exact under the owner's lock (FilterCore); unlocked, an unstamped delete from A and
 *   an add into B between its two reads would count one copy twice.
 *
 *   No false negative, what every write path here keeps: a fingerprint leaves its key's pair
 *   only by a delete the caller asked for; a kick step moves it to the other bucket of its pair,
 *   writing the new copy before clearing the old slot, inside odd stamps of both buckets. So a
 *   resident key's fingerprint is in one of its two buckets at every instant, and a reader that
 *   might have read the pair while it was in transit sees a changed stamp and retries.
 * </pre>
 */
public final class Table extends TablePadTail {

  /** Items stored in this table; written under the owner's lock. */
  long items;

  /** Breadth-first search scratch, used under the owner's lock only. */
  private final KickPath kicks;

  /**
   * The fingerprint mask of the filter's first sub-filter: a stored fingerprint's alternate bucket
   * is computed from its low bits under this mask, the same in every sub-filter (see FilterCore).
   */
  final long altMask;

  /**
   * The semi-sorted codec of this table's words, or null if they are laid out by {@link
   * PackedBuckets} (see {@link #layoutFor}). A semi-sorted table reads and writes its buckets
   * through it only; the plain codec's fields then describe no words and are not used, except
   * {@code fingerprintBits}, {@code slotMask}, the geometry and the stamps, which both share.
   */
  final @Nullable SemiSortedBuckets semi;

  /**
   * A table whose alternate buckets follow its own fingerprints (a first sub-filter).
   *
   * @param fingerprintBits f in [4, 32]
   * @param bucketSize b in {2, 4, 8}
   * @param localBuckets n, even, at least 2
   * @param segments m, at least 1, n·m·b·f/64 must fit an array
   * @param maxKicks nodes the kick search may visit
   */
  Table(int fingerprintBits, int bucketSize, int localBuckets, int segments, int maxKicks) {
    this(fingerprintBits, bucketSize, localBuckets, segments, maxKicks, null, fingerprintBits);
  }

  /**
   * @param words the loaded words, or null for an empty table
   * @param altBits the first sub-filter's fingerprint width, at most {@code f}
   */
  Table(int f, int b, int n, int m, int maxKicks, long @Nullable [] words, int altBits) {
    this(f, b, n, m, maxKicks, words, altBits, false);
  }

  /**
   * @param semiSorted the filter's tables are semi-sorted where the layout applies ({@link
   *     #layoutFor})
   */
  Table(
      int f,
      int b,
      int n,
      int m,
      int maxKicks,
      long @Nullable [] words,
      int altBits,
      boolean semiSorted) {
    super(
        f,
        b,
        n,
        m,
        words != null ? words : new long[wordCount(storedBits(f, b, semiSorted), b, n, m)],
        !layoutFor(f, b, semiSorted));
    this.kicks = new KickPath(maxKicks);
    this.altMask = (1L << altBits) - 1;
    this.semi = layoutFor(f, b, semiSorted) ? new SemiSortedBuckets(f, data) : null;
  }

  /**
   * True if a table of a semi-sorted filter with these fingerprints is semi-sorted: 4-slot buckets
   * of at most 16-bit fingerprints. Wider sub-filters that growth adds keep the plain layout.
   */
  static boolean layoutFor(int f, int b, boolean semiSorted) {
    return semiSorted && SemiSortedBuckets.applies(f, b);
  }

  /** Bits a slot takes in the words: {@code f}, or {@code f − 1} semi-sorted. */
  static int storedBits(int f, int b, boolean semiSorted) {
    return layoutFor(f, b, semiSorted) ? f - 1 : f;
  }

  /** Bits of the words that hold buckets (the rest is padding and the spare word). */
  long usedBits() {
    SemiSortedBuckets s = semi;
    return totalBuckets * (s != null ? s.bucketBits : bucketBits);
  }

  /** This table's fingerprint of {@code hash}: its low {@code f} bits, never 0. */
  long fingerprintOf(long hash) {
    return BucketIndex.fingerprint(hash, slotMask);
  }

  /**
   * Words needed for the bit-packed buckets plus the spare word, or -1 if more than an array holds.
   */
  static long wordCountOrMinus1(int f, int b, int n, long m) {
    long bits = (long) n * m * b * f;
    if (bits < 0 || bits / ((long) b * f) != (long) n * m) {
      return -1;
    }
    long words = (bits + 63) / 64 + 1;
    return words > Sizing.MAX_ARRAY_LENGTH ? -1 : words;
  }

  static int wordCount(int f, int b, int n, int m) {
    long words = wordCountOrMinus1(f, b, n, m);
    if (words < 0) {
      throw new IllegalArgumentException(
          "a table of "
              + ((long) n * m)
              + " buckets of "
              + b
              + " x "
              + f
              + "-bit slots is larger than a Java array can index; lower expectedInsertions");
    }
    return (int) words;
  }

  /**
   * The other bucket of {@code l}'s pair for the stored fingerprint {@code fp}: computed from the
   * first sub-filter's fingerprint of the same hash, which is {@code fp}'s low bits under {@link
   * #altMask} (0 mapped to 1, as {@link BucketIndex#fingerprint} maps it), so a key's pair is the
   * same in every sub-filter whatever their widths.
   */
  int alt(int l, long fp) {
    return BucketIndex.altIndex(l, BucketIndex.fingerprint(fp, altMask), localBuckets, half);
  }

  /** First bucket of the segment this hash falls into. */
  long segmentBase(long hash) {
    return BucketIndex.segmentBase(hash, segments, localBuckets);
  }

  // ---- reads ----

  /**
   * Lock-free membership test of fingerprint {@code fp} in buckets {@code b1}, {@code b2}. Both
   * answers are validated against the stamps: a match is not trusted either, because a slot that
   * spans two words is written with two stores and can be read half-written
   * (NoPhantomFingerprintFromAHalfWrittenSlotTest).
   */
  boolean contains(long fp, long b1, long b2) {
    int s1 = stripe(b1);
    int s2 = stripe(b2);
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(stamps, s1);
      long v2 = (long) LONGS.getAcquire(stamps, s2);
      boolean found = match(b1, b2, fp);
      if (unchanged(s1, s2, v1, v2)) {
        return found;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * {@link FilterCore#contains} of {@code hash} in a filter whose only sub-filter is this one (one
   * segment, alternate buckets from its own fingerprints): the fingerprint, the bucket pair, the
   * stamps and the buckets from this one object, every parameter read once into a local before the
   * first stamp load. Same answers and the same validation as {@link #contains}: both stamps are
   * read (acquire) before the buckets and re-read after them, and the answer is returned only if
   * both were even and unchanged; one branch checks the three conditions.
   *
   * <p>Buckets of one 64-bit window, aligned (b·f divides 64: 16-bit and 8-bit buckets of 4) read
   * one word each; unaligned ones (13-bit buckets of 4, 52 bits) read the two words around each
   * bucket, with no branch on where it starts. Wider buckets and semi-sorted tables go the general
   * way ({@link #contains}).
   */
  boolean containsHash(long hash) {
    int k = kind;
    if (k == WORD16) {
      return contains16(hash);
    }
    if (k == HALF8) {
      return contains8(hash);
    }
    // A semi-sorted table's words are not laid out as the plain fields below describe.
    if (semi != null || windows != 1) {
      long fp = fingerprintOf(hash);
      int l1 = BucketIndex.primaryIndex(hash, localBuckets);
      return contains(fp, l1, BucketIndex.altIndex(l1, fp, localBuckets, half));
    }
    final long[] d = data;
    final long[] st = stamps;
    final int sm = stampMask;
    final int n = localBuckets;
    final long lo = lows;
    final long hi = highs;
    final long wm = windowMask;
    final long bb = bucketBits;
    final long fp = BucketIndex.fingerprint(hash, slotMask);
    final int l1 = BucketIndex.primaryIndex(hash, n);
    final int l2 = BucketIndex.altIndex(l1, fp, n, half);
    final int s1 = (l1 & sm) + STAMP_PAD;
    final int s2 = (l2 & sm) + STAMP_PAD;
    final long rep = fp * lo;
    final long p1 = l1 * bb;
    final long p2 = l2 * bb;
    final int w1 = (int) (p1 >>> 6);
    final int w2 = (int) (p2 >>> 6);
    final int o1 = (int) p1 & 63;
    final int o2 = (int) p2 & 63;
    if (aligned) {
      for (; ; ) {
        long v1 = (long) LONGS.getAcquire(st, s1);
        long v2 = (long) LONGS.getAcquire(st, s2);
        long x = ((d[w1] >>> o1) & wm) ^ rep;
        long y = ((d[w2] >>> o2) & wm) ^ rep;
        VarHandle.acquireFence();
        long u1 = (long) LONGS.getOpaque(st, s1);
        long u2 = (long) LONGS.getOpaque(st, s2);
        if ((((v1 | v2) & 1) | (u1 ^ v1) | (u2 ^ v2)) == 0) {
          return ((((x - lo) & ~x) | ((y - lo) & ~y)) & hi) != 0;
        }
        Thread.onSpinWait();
      }
    }
    return oneWindowEach(d, st, s1, s2, w1, o1, w2, o2, wm, rep, lo, hi);
  }

  /**
   * The validated read of two buckets of one unaligned window each (word {@code w}, bit offset
   * {@code o}; the two words around it read with no branch on where it starts), for {@link
   * #containsHash} and {@link #containsIn}: both stamps read (acquire) before the buckets and
   * re-read after them, the answer returned only if both were even and unchanged.
   */
  private static boolean oneWindowEach(
      long[] d,
      long[] st,
      int s1,
      int s2,
      int w1,
      int o1,
      int w2,
      int o2,
      long wm,
      long rep,
      long lo,
      long hi) {
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(st, s1);
      long v2 = (long) LONGS.getAcquire(st, s2);
      long x = (((d[w1] >>> o1) | ((d[w1 + 1] << 1) << (63 - o1))) & wm) ^ rep;
      long y = (((d[w2] >>> o2) | ((d[w2 + 1] << 1) << (63 - o2))) & wm) ^ rep;
      VarHandle.acquireFence();
      long u1 = (long) LONGS.getOpaque(st, s1);
      long u2 = (long) LONGS.getOpaque(st, s2);
      if ((((v1 | v2) & 1) | (u1 ^ v1) | (u2 ^ v2)) == 0) {
        return ((((x - lo) & ~x) | ((y - lo) & ~y)) & hi) != 0;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * {@link #contains} of {@code hash} in this sub-filter of a grown filter, whose local pair
   * ({@code l1}, {@code l2}) the caller computed once from the first sub-filter's fingerprint (see
   * {@link #alt}): the segment, this table's fingerprint, the stamps and the buckets from this one
   * object, every parameter read once into a local before the first stamp load. Same answers and
   * the same validation as {@link #contains} (both stamps read before the buckets and re-read after
   * them, the answer returned only if both were even and unchanged), for buckets of one or two
   * 64-bit windows (4-slot buckets of up to 32 bits, what growth appends); each window is read from
   * the two words around it with no branch on where it starts (the spare word at the end makes the
   * second read safe). Semi-sorted tables and 8-slot buckets of more than 8 bits go the general
   * way.
   */
  boolean containsIn(long hash, int l1, int l2) {
    final int k = windows;
    if (semi != null || k > 2) {
      long base = segmentBase(hash);
      return contains(fingerprintOf(hash), base + l1, base + l2);
    }
    final long[] d = data;
    final long[] st = stamps;
    final int sm = stampMask;
    final long lo = lows;
    final long hi = highs;
    final long wm = windowMask;
    final long bb = bucketBits;
    final long base = BucketIndex.segmentBase(hash, segments, localBuckets);
    final long b1 = base + l1;
    final long b2 = base + l2;
    final long rep = BucketIndex.fingerprint(hash, slotMask) * lo;
    final int s1 = ((int) b1 & sm) + STAMP_PAD;
    final int s2 = ((int) b2 & sm) + STAMP_PAD;
    final long p1 = b1 * bb;
    final long p2 = b2 * bb;
    final int w1 = (int) (p1 >>> 6);
    final int w2 = (int) (p2 >>> 6);
    final int o1 = (int) p1 & 63;
    final int o2 = (int) p2 & 63;
    if (k == 1) {
      return oneWindowEach(d, st, s1, s2, w1, o1, w2, o2, wm, rep, lo, hi);
    }
    // Two windows of windowBits each: the second starts windowBits after the first.
    final long q1 = p1 + windowBits;
    final long q2 = p2 + windowBits;
    final int w3 = (int) (q1 >>> 6);
    final int w4 = (int) (q2 >>> 6);
    final int o3 = (int) q1 & 63;
    final int o4 = (int) q2 & 63;
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(st, s1);
      long v2 = (long) LONGS.getAcquire(st, s2);
      long x = (((d[w1] >>> o1) | ((d[w1 + 1] << 1) << (63 - o1))) & wm) ^ rep;
      long y = (((d[w2] >>> o2) | ((d[w2 + 1] << 1) << (63 - o2))) & wm) ^ rep;
      long z = (((d[w3] >>> o3) | ((d[w3 + 1] << 1) << (63 - o3))) & wm) ^ rep;
      long t = (((d[w4] >>> o4) | ((d[w4 + 1] << 1) << (63 - o4))) & wm) ^ rep;
      VarHandle.acquireFence();
      long u1 = (long) LONGS.getOpaque(st, s1);
      long u2 = (long) LONGS.getOpaque(st, s2);
      if ((((v1 | v2) & 1) | (u1 ^ v1) | (u2 ^ v2)) == 0) {
        return ((((x - lo) & ~x) | ((y - lo) & ~y) | ((z - lo) & ~z) | ((t - lo) & ~t)) & hi) != 0;
      }
      Thread.onSpinWait();
    }
  }

  private static final long LO16 = 0x0001_0001_0001_0001L;
  private static final long HI16 = LO16 << 15;
  private static final int LO8 = 0x0101_0101;
  private static final int HI8 = LO8 << 7;

  /**
   * {@link #containsHash} of a {@link #WORD16} table: bucket i is word i, the layout's masks are
   * constants, and only {@code data}, {@code stamps}, {@code stampMask} and {@code localBuckets}
   * are read from the object.
   *
   * <p>Both buckets are loaded before either is tested, with no branch between the loads (as
   * FastFilter does): the two loads overlap, which matters when they miss the caches, and where in
   * the pair a match sits costs no branch misprediction. A match is returned at once, unvalidated.
   * Every slot lies inside one word and every write of it is one store of that word (the layout is
   * plain: {@code kind} is never WORD16 or HALF8 for a semi-sorted table), so a match read by one
   * load is a copy the pair held at that instant, never a half-written slot; at worst it is a false
   * positive, which the filter's contract allows. A "no" is returned only validated, exactly as
   * {@link #contains}: both stamps are read (acquire) before either bucket and re-read after both,
   * and the answer stands only if both were even and unchanged (the argument in the class comment
   * holds for the two bucket loads in either order).
   */
  private boolean contains16(long hash) {
    final long[] d = data;
    final long[] st = stamps;
    final int sm = stampMask;
    final int n = localBuckets;
    final long fp = BucketIndex.fingerprint(hash, 0xFFFFL);
    final int l1 = BucketIndex.primaryIndex(hash, n);
    final int l2 = BucketIndex.altIndex(l1, fp, n, n >>> 1);
    final int s1 = (l1 & sm) + STAMP_PAD;
    final int s2 = (l2 & sm) + STAMP_PAD;
    final long rep = fp * LO16;
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(st, s1);
      long v2 = (long) LONGS.getAcquire(st, s2);
      long x = d[l1] ^ rep;
      long y = d[l2] ^ rep;
      if (((((x - LO16) & ~x) | ((y - LO16) & ~y)) & HI16) != 0) {
        return true;
      }
      VarHandle.acquireFence();
      long u1 = (long) LONGS.getOpaque(st, s1);
      long u2 = (long) LONGS.getOpaque(st, s2);
      if ((((v1 | v2) & 1) | (u1 ^ v1) | (u2 ^ v2)) == 0) {
        return false;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * {@link #containsHash} of a {@link #HALF8} table: bucket i is the 32-bit half {@code i & 1} of
   * word {@code i >>> 1}; otherwise as {@link #contains16} (a match at once, a "no" validated).
   */
  private boolean contains8(long hash) {
    final long[] d = data;
    final long[] st = stamps;
    final int sm = stampMask;
    final int n = localBuckets;
    final long fp = BucketIndex.fingerprint(hash, 0xFFL);
    final int l1 = BucketIndex.primaryIndex(hash, n);
    final int l2 = BucketIndex.altIndex(l1, fp, n, n >>> 1);
    final int s1 = (l1 & sm) + STAMP_PAD;
    final int s2 = (l2 & sm) + STAMP_PAD;
    final int rep = (int) fp * LO8;
    final int w1 = l1 >>> 1;
    final int w2 = l2 >>> 1;
    final int o1 = (l1 & 1) << 5;
    final int o2 = (l2 & 1) << 5;
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(st, s1);
      long v2 = (long) LONGS.getAcquire(st, s2);
      int x = (int) (d[w1] >>> o1) ^ rep;
      int y = (int) (d[w2] >>> o2) ^ rep;
      if (((((x - LO8) & ~x) | ((y - LO8) & ~y)) & HI8) != 0) {
        return true;
      }
      VarHandle.acquireFence();
      long u1 = (long) LONGS.getOpaque(st, s1);
      long u2 = (long) LONGS.getOpaque(st, s2);
      if ((((v1 | v2) & 1) | (u1 ^ v1) | (u2 ^ v2)) == 0) {
        return false;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * {@link #tryPlace} of {@code hash}'s fingerprint in a first sub-filter of kind {@link #WORD16}
   * or {@link #HALF8} that is the filter's only table (segment base 0, alternate buckets from its
   * own fingerprints); caller holds the owner's lock. The same write as {@link #tryPlace}: the
   * first empty slot of the first bucket, else of the second, one unstamped release store of one
   * word (an add only adds a copy, see Concurrency); false, with nothing changed, if both are full.
   */
  boolean tryPlaceFirst(long hash) {
    final long[] d = data;
    final int n = localBuckets;
    if (kind == WORD16) {
      long fp = BucketIndex.fingerprint(hash, 0xFFFFL);
      int l = BucketIndex.primaryIndex(hash, n);
      long x = d[l];
      long z = (x - LO16) & ~x & HI16; // its lowest flagged lane is the lowest empty one
      if (z == 0) {
        l = BucketIndex.altIndex(l, fp, n, n >>> 1);
        x = d[l];
        z = (x - LO16) & ~x & HI16;
        if (z == 0) {
          return false;
        }
      }
      LONGS.setRelease(d, l, x | (fp << (Long.numberOfTrailingZeros(z) - 15)));
    } else {
      long fp = BucketIndex.fingerprint(hash, 0xFFL);
      int l = BucketIndex.primaryIndex(hash, n);
      int o = (l & 1) << 5;
      long w = d[l >>> 1];
      int x = (int) (w >>> o);
      int z = (x - LO8) & ~x & HI8;
      if (z == 0) {
        l = BucketIndex.altIndex(l, fp, n, n >>> 1);
        o = (l & 1) << 5;
        w = d[l >>> 1];
        x = (int) (w >>> o);
        z = (x - LO8) & ~x & HI8;
        if (z == 0) {
          return false;
        }
      }
      LONGS.setRelease(d, l >>> 1, w | (fp << (o + Integer.numberOfTrailingZeros(z) - 7)));
    }
    items++;
    return true;
  }

  /**
   * Four lookups in this table (a filter of one sub-filter, whose segment base is 0) validated
   * together: the answer for hash {@code hk} is bit {@code k} of the result. Same answers, and the
   * same no-false-negative argument, as four calls of {@link #contains}: the eight stamps are read
   * (acquire) before any bucket, and re-read after all of them; the group is retried, whatever it
   * found, unless every stamp was even and unchanged. Stamps only ever increase (each write adds to
   * one), and a thread's later read of a location never sees an older value than its earlier read,
   * so each re-read value is at least the first one and the sums are equal only if every stamp is:
   * one comparison checks all eight. Parameters are held in locals for the whole group. A 16- or
   * 8-bit plain table answers through its own copy of this ({@link #contains4Word16}).
   */
  int contains4(long h0, long h1, long h2, long h3) {
    if (kind == WORD16) {
      return contains4Word16(h0, h1, h2, h3);
    }
    if (kind == HALF8) {
      return contains4Half8(h0, h1, h2, h3);
    }
    final long[] st = stamps;
    final int mask = stampMask;
    final long fpMask = slotMask;
    final int n = localBuckets;
    final int hf = half;
    long f0 = BucketIndex.fingerprint(h0, fpMask);
    long f1 = BucketIndex.fingerprint(h1, fpMask);
    long f2 = BucketIndex.fingerprint(h2, fpMask);
    long f3 = BucketIndex.fingerprint(h3, fpMask);
    int a0 = BucketIndex.primaryIndex(h0, n);
    int a1 = BucketIndex.primaryIndex(h1, n);
    int a2 = BucketIndex.primaryIndex(h2, n);
    int a3 = BucketIndex.primaryIndex(h3, n);
    int c0 = BucketIndex.altIndex(a0, f0, n, hf);
    int c1 = BucketIndex.altIndex(a1, f1, n, hf);
    int c2 = BucketIndex.altIndex(a2, f2, n, hf);
    int c3 = BucketIndex.altIndex(a3, f3, n, hf);
    int sa0 = (a0 & mask) + STAMP_PAD;
    int sa1 = (a1 & mask) + STAMP_PAD;
    int sa2 = (a2 & mask) + STAMP_PAD;
    int sa3 = (a3 & mask) + STAMP_PAD;
    int sc0 = (c0 & mask) + STAMP_PAD;
    int sc1 = (c1 & mask) + STAMP_PAD;
    int sc2 = (c2 & mask) + STAMP_PAD;
    int sc3 = (c3 & mask) + STAMP_PAD;
    for (; ; ) {
      long u0 = (long) LONGS.getAcquire(st, sa0);
      long u1 = (long) LONGS.getAcquire(st, sa1);
      long u2 = (long) LONGS.getAcquire(st, sa2);
      long u3 = (long) LONGS.getAcquire(st, sa3);
      long w0 = (long) LONGS.getAcquire(st, sc0);
      long w1 = (long) LONGS.getAcquire(st, sc1);
      long w2 = (long) LONGS.getAcquire(st, sc2);
      long w3 = (long) LONGS.getAcquire(st, sc3);
      int found =
          (match(a0, c0, f0) ? 1 : 0)
              | (match(a1, c1, f1) ? 2 : 0)
              | (match(a2, c2, f2) ? 4 : 0)
              | (match(a3, c3, f3) ? 8 : 0);
      VarHandle.acquireFence();
      long odd = (u0 | u1 | u2 | u3 | w0 | w1 | w2 | w3) & 1;
      long before = u0 + u1 + u2 + u3 + w0 + w1 + w2 + w3;
      long after =
          (long) LONGS.getOpaque(st, sa0)
              + (long) LONGS.getOpaque(st, sa1)
              + (long) LONGS.getOpaque(st, sa2)
              + (long) LONGS.getOpaque(st, sa3)
              + (long) LONGS.getOpaque(st, sc0)
              + (long) LONGS.getOpaque(st, sc1)
              + (long) LONGS.getOpaque(st, sc2)
              + (long) LONGS.getOpaque(st, sc3);
      if (odd == 0 && after == before) {
        return found;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * {@link #contains4} of a {@link #WORD16} or {@link #HALF8} table ({@link #contains4Word16},
   * {@link #contains4Half8}): the layout's masks are constants, both buckets of every key are
   * loaded before anything is tested, and, as in {@link #contains16}, matches need no validation
   * (every slot is written by one store of its word), so a group of four matches returns at once.
   * Any other group is validated exactly as {@link #contains4}: the eight stamps read (acquire)
   * before any bucket and re-read after all of them, the group retried unless all were even and
   * unchanged.
   */
  private int contains4Word16(long h0, long h1, long h2, long h3) {
    final long[] d = data;
    final long[] st = stamps;
    final int sm = stampMask;
    final int n = localBuckets;
    final int hf = n >>> 1;
    final long f0 = BucketIndex.fingerprint(h0, 0xFFFFL);
    final long f1 = BucketIndex.fingerprint(h1, 0xFFFFL);
    final long f2 = BucketIndex.fingerprint(h2, 0xFFFFL);
    final long f3 = BucketIndex.fingerprint(h3, 0xFFFFL);
    final int a0 = BucketIndex.primaryIndex(h0, n);
    final int a1 = BucketIndex.primaryIndex(h1, n);
    final int a2 = BucketIndex.primaryIndex(h2, n);
    final int a3 = BucketIndex.primaryIndex(h3, n);
    final int c0 = BucketIndex.altIndex(a0, f0, n, hf);
    final int c1 = BucketIndex.altIndex(a1, f1, n, hf);
    final int c2 = BucketIndex.altIndex(a2, f2, n, hf);
    final int c3 = BucketIndex.altIndex(a3, f3, n, hf);
    final int sa0 = (a0 & sm) + STAMP_PAD;
    final int sa1 = (a1 & sm) + STAMP_PAD;
    final int sa2 = (a2 & sm) + STAMP_PAD;
    final int sa3 = (a3 & sm) + STAMP_PAD;
    final int sc0 = (c0 & sm) + STAMP_PAD;
    final int sc1 = (c1 & sm) + STAMP_PAD;
    final int sc2 = (c2 & sm) + STAMP_PAD;
    final int sc3 = (c3 & sm) + STAMP_PAD;
    final long r0 = f0 * LO16;
    final long r1 = f1 * LO16;
    final long r2 = f2 * LO16;
    final long r3 = f3 * LO16;
    for (; ; ) {
      long u0 = (long) LONGS.getAcquire(st, sa0);
      long u1 = (long) LONGS.getAcquire(st, sa1);
      long u2 = (long) LONGS.getAcquire(st, sa2);
      long u3 = (long) LONGS.getAcquire(st, sa3);
      long w0 = (long) LONGS.getAcquire(st, sc0);
      long w1 = (long) LONGS.getAcquire(st, sc1);
      long w2 = (long) LONGS.getAcquire(st, sc2);
      long w3 = (long) LONGS.getAcquire(st, sc3);
      long x0 = d[a0] ^ r0;
      long y0 = d[c0] ^ r0;
      long x1 = d[a1] ^ r1;
      long y1 = d[c1] ^ r1;
      long x2 = d[a2] ^ r2;
      long y2 = d[c2] ^ r2;
      long x3 = d[a3] ^ r3;
      long y3 = d[c3] ^ r3;
      long z0 = (((x0 - LO16) & ~x0) | ((y0 - LO16) & ~y0)) & HI16;
      long z1 = (((x1 - LO16) & ~x1) | ((y1 - LO16) & ~y1)) & HI16;
      long z2 = (((x2 - LO16) & ~x2) | ((y2 - LO16) & ~y2)) & HI16;
      long z3 = (((x3 - LO16) & ~x3) | ((y3 - LO16) & ~y3)) & HI16;
      int found = (z0 != 0 ? 1 : 0) | (z1 != 0 ? 2 : 0) | (z2 != 0 ? 4 : 0) | (z3 != 0 ? 8 : 0);
      if (found == 15) {
        return 15; // four matches: each a copy its pair held, no validation needed
      }
      VarHandle.acquireFence();
      long odd = (u0 | u1 | u2 | u3 | w0 | w1 | w2 | w3) & 1;
      long before = u0 + u1 + u2 + u3 + w0 + w1 + w2 + w3;
      long after =
          (long) LONGS.getOpaque(st, sa0)
              + (long) LONGS.getOpaque(st, sa1)
              + (long) LONGS.getOpaque(st, sa2)
              + (long) LONGS.getOpaque(st, sa3)
              + (long) LONGS.getOpaque(st, sc0)
              + (long) LONGS.getOpaque(st, sc1)
              + (long) LONGS.getOpaque(st, sc2)
              + (long) LONGS.getOpaque(st, sc3);
      if (odd == 0 && after == before) {
        return found;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * {@link #contains4Word16} of a {@link #HALF8} table (bucket i: half {@code i & 1} of word {@code
   * i >>> 1}).
   */
  private int contains4Half8(long h0, long h1, long h2, long h3) {
    final long[] d = data;
    final long[] st = stamps;
    final int sm = stampMask;
    final int n = localBuckets;
    final int hf = n >>> 1;
    final long f0 = BucketIndex.fingerprint(h0, 0xFFL);
    final long f1 = BucketIndex.fingerprint(h1, 0xFFL);
    final long f2 = BucketIndex.fingerprint(h2, 0xFFL);
    final long f3 = BucketIndex.fingerprint(h3, 0xFFL);
    final int a0 = BucketIndex.primaryIndex(h0, n);
    final int a1 = BucketIndex.primaryIndex(h1, n);
    final int a2 = BucketIndex.primaryIndex(h2, n);
    final int a3 = BucketIndex.primaryIndex(h3, n);
    final int c0 = BucketIndex.altIndex(a0, f0, n, hf);
    final int c1 = BucketIndex.altIndex(a1, f1, n, hf);
    final int c2 = BucketIndex.altIndex(a2, f2, n, hf);
    final int c3 = BucketIndex.altIndex(a3, f3, n, hf);
    final int sa0 = (a0 & sm) + STAMP_PAD;
    final int sa1 = (a1 & sm) + STAMP_PAD;
    final int sa2 = (a2 & sm) + STAMP_PAD;
    final int sa3 = (a3 & sm) + STAMP_PAD;
    final int sc0 = (c0 & sm) + STAMP_PAD;
    final int sc1 = (c1 & sm) + STAMP_PAD;
    final int sc2 = (c2 & sm) + STAMP_PAD;
    final int sc3 = (c3 & sm) + STAMP_PAD;
    final int r0 = (int) f0 * LO8;
    final int r1 = (int) f1 * LO8;
    final int r2 = (int) f2 * LO8;
    final int r3 = (int) f3 * LO8;
    final int oa0 = (a0 & 1) << 5;
    final int oa1 = (a1 & 1) << 5;
    final int oa2 = (a2 & 1) << 5;
    final int oa3 = (a3 & 1) << 5;
    final int oc0 = (c0 & 1) << 5;
    final int oc1 = (c1 & 1) << 5;
    final int oc2 = (c2 & 1) << 5;
    final int oc3 = (c3 & 1) << 5;
    for (; ; ) {
      long u0 = (long) LONGS.getAcquire(st, sa0);
      long u1 = (long) LONGS.getAcquire(st, sa1);
      long u2 = (long) LONGS.getAcquire(st, sa2);
      long u3 = (long) LONGS.getAcquire(st, sa3);
      long w0 = (long) LONGS.getAcquire(st, sc0);
      long w1 = (long) LONGS.getAcquire(st, sc1);
      long w2 = (long) LONGS.getAcquire(st, sc2);
      long w3 = (long) LONGS.getAcquire(st, sc3);
      int x0 = (int) (d[a0 >>> 1] >>> oa0) ^ r0;
      int y0 = (int) (d[c0 >>> 1] >>> oc0) ^ r0;
      int x1 = (int) (d[a1 >>> 1] >>> oa1) ^ r1;
      int y1 = (int) (d[c1 >>> 1] >>> oc1) ^ r1;
      int x2 = (int) (d[a2 >>> 1] >>> oa2) ^ r2;
      int y2 = (int) (d[c2 >>> 1] >>> oc2) ^ r2;
      int x3 = (int) (d[a3 >>> 1] >>> oa3) ^ r3;
      int y3 = (int) (d[c3 >>> 1] >>> oc3) ^ r3;
      int z0 = (((x0 - LO8) & ~x0) | ((y0 - LO8) & ~y0)) & HI8;
      int z1 = (((x1 - LO8) & ~x1) | ((y1 - LO8) & ~y1)) & HI8;
      int z2 = (((x2 - LO8) & ~x2) | ((y2 - LO8) & ~y2)) & HI8;
      int z3 = (((x3 - LO8) & ~x3) | ((y3 - LO8) & ~y3)) & HI8;
      int found = (z0 != 0 ? 1 : 0) | (z1 != 0 ? 2 : 0) | (z2 != 0 ? 4 : 0) | (z3 != 0 ? 8 : 0);
      if (found == 15) {
        return 15; // four matches: each a copy its pair held, no validation needed
      }
      VarHandle.acquireFence();
      long odd = (u0 | u1 | u2 | u3 | w0 | w1 | w2 | w3) & 1;
      long before = u0 + u1 + u2 + u3 + w0 + w1 + w2 + w3;
      long after =
          (long) LONGS.getOpaque(st, sa0)
              + (long) LONGS.getOpaque(st, sa1)
              + (long) LONGS.getOpaque(st, sa2)
              + (long) LONGS.getOpaque(st, sa3)
              + (long) LONGS.getOpaque(st, sc0)
              + (long) LONGS.getOpaque(st, sc1)
              + (long) LONGS.getOpaque(st, sc2)
              + (long) LONGS.getOpaque(st, sc3);
      if (odd == 0 && after == before) {
        return found;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * Copies of {@code fp} in the two buckets; caller holds the owner's lock. Unlocked, a kick moving
   * {@code fp} between the buckets could be counted twice or not at all
   * (CountIsExactWhileAKickMovesTheFingerprintTest), and so could an unstamped delete and add.
   */
  int count(long fp, long b1, long b2) {
    SemiSortedBuckets s = semi;
    if (s != null) {
      return s.copies(b1, fp) + s.copies(b2, fp);
    }
    return copies(b1, fp) + copies(b2, fp);
  }

  // ---- the codec of this table's layout (a branch on a final field, the same every call) ----

  private boolean match(long b1, long b2, long fp) {
    SemiSortedBuckets s = semi;
    return s != null ? s.matches(b1, b2, fp) : matches(b1, b2, fp);
  }

  /**
   * Slot {@code j} of {@code bucket}; for a semi-sorted table the j-th smallest, a position that a
   * write of the bucket may change.
   */
  long read(long bucket, int j) {
    SemiSortedBuckets s = semi;
    return s != null ? s.slot(bucket, j) : slot(bucket, j);
  }

  /** An empty slot of {@code bucket}, or -1. */
  int emptySlot(long bucket) {
    SemiSortedBuckets s = semi;
    return s != null ? s.freeSlot(bucket) : freeSlot(bucket);
  }

  private int copiesIn(long bucket, long fp) {
    SemiSortedBuckets s = semi;
    return s != null ? s.copies(bucket, fp) : copies(bucket, fp);
  }

  private int find(long bucket, long fp) {
    SemiSortedBuckets s = semi;
    return s != null ? s.slotOf(bucket, fp) : slotOf(bucket, fp);
  }

  /**
   * Changes slot {@code j} of {@code bucket} from {@code oldFp} to {@code newFp}, or, semi-sorted,
   * one copy of {@code oldFp} (wherever sorting has put it) to {@code newFp}; no stamps.
   */
  void put(long bucket, int j, long oldFp, long newFp) {
    SemiSortedBuckets s = semi;
    if (s != null) {
      s.replace(bucket, oldFp, newFp);
    } else {
      write(bucket, j, oldFp, newFp);
    }
  }

  /** True if a write of slot {@code j} of {@code bucket} takes two stores. */
  private boolean twoStores(long bucket, int j) {
    SemiSortedBuckets s = semi;
    return s != null ? s.spans(bucket) : spans(bucket, j);
  }

  /**
   * True if no writer was inside stripes {@code s1}, {@code s2} when their stamps read {@code v1},
   * {@code v2} and none has entered since: the bucket reads made in between saw one unchanging
   * state.
   */
  private boolean unchanged(int s1, int s2, long v1, long v2) {
    VarHandle.acquireFence();
    return ((v1 | v2) & 1) == 0
        && v1 == (long) LONGS.getOpaque(stamps, s1)
        && v2 == (long) LONGS.getOpaque(stamps, s2);
  }

  // ---- writes: caller holds the owner's lock ----

  /**
   * Writes one slot of one bucket, inside an odd stamp of that bucket if {@code stamped} or if the
   * slot spans two words (see Concurrency).
   */
  private void writeSlot(long bucket, int j, long oldFp, long newFp, boolean stamped) {
    if (!stamped && !twoStores(bucket, j)) {
      put(bucket, j, oldFp, newFp);
      return;
    }
    int s = stripe(bucket);
    long v = stamps[s];
    LONGS.setOpaque(stamps, s, v + 1);
    VarHandle.storeStoreFence();
    put(bucket, j, oldFp, newFp);
    LONGS.setRelease(stamps, s, v + 2);
  }

  /** Places {@code fp} in an empty slot of either bucket, without moving anything. */
  boolean tryPlace(long fp, long b1, long b2) {
    int j = emptySlot(b1);
    long bucket = b1;
    if (j < 0) {
      j = emptySlot(b2);
      bucket = b2;
      if (j < 0) {
        return false;
      }
    }
    // Unstamped (unless the slot spans two words): an add only adds a copy, and the delete that
    // could complete a hiding move is the stamped write (see Concurrency). So an add into the first
    // bucket never reads the second.
    writeSlot(bucket, j, 0, fp, false);
    items++;
    return true;
  }

  /**
   * Stores {@code fp} by moving other fingerprints along the shortest path found by a breadth-first
   * search of at most {@code maxKicks} nodes ({@link KickPath}). Returns false, with the table
   * unchanged, if there is no such path. Call only after {@link #tryPlace} failed.
   */
  boolean kickInsert(long fp, long b1, long b2, long base) {
    if (kicks.insert(this, fp, b1, b2, base)) {
      items++;
      return true;
    }
    return false;
  }

  /**
   * Clears one copy of {@code fp} from either bucket; false if neither holds it. Stamped if another
   * copy of {@code fp} stays in the pair (see Concurrency): a delete from {@code b2} has just found
   * none in {@code b1}, so only its own bucket can hold another.
   */
  boolean delete(long fp, long b1, long b2) {
    int j = find(b1, fp);
    if (j >= 0) {
      writeSlot(b1, j, fp, 0, copiesIn(b1, fp) > 1 || find(b2, fp) >= 0);
      items--;
      return true;
    }
    j = find(b2, fp);
    if (j >= 0) {
      writeSlot(b2, j, fp, 0, copiesIn(b2, fp) > 1);
      items--;
      return true;
    }
    return false;
  }

  long slots() {
    return totalBuckets * bucketSize;
  }

  long bytes() {
    return (long) data.length * Long.BYTES;
  }
}

/*
 * Field layout of Table, against false sharing: lookups read the fields of PackedBuckets on every
 * call; the writer writes Table.items and, through the lock, objects that may sit next to a Table
 * in memory. Superclass fields are laid out first, so PackedBuckets' fields start at least 64
 * bytes after the object's start and end at least 64 bytes before Table's own fields (JCTools'
 * and Caffeine's padding idiom).
 */

/** Padding before the fields lookups read. */
@SuppressWarnings("unused")
abstract class TablePadHead {
  int p00;
  long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** Padding between the fields lookups read and the fields writers write. */
@SuppressWarnings("unused")
abstract class TablePadTail extends PackedBuckets {
  long q01, q02, q03, q04, q05, q06, q07, q08;

  TablePadTail(int f, int b, int n, int m, long[] words, boolean plain) {
    super(f, b, n, m, words, plain);
  }
}
