package io.github.cuckooguard.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One cuckoo hash table (a sub-filter): {@code segments × localBuckets} buckets of {@code b}
 * slots of {@code f} bits, bit-packed in a {@code long[]}.
 *
 * <pre>
 * Layout
 *   bucket i occupies bits [i·b·f, (i+1)·b·f) of the little-endian bit string formed by data[];
 *   slot j of bucket i is bits [i·b·f + j·f, … + f). 0 means empty. One spare word at the end
 *   lets every read fetch the two words around a bucket without a bounds branch, so a bucket of
 *   up to 64 bits (b = 4 and f ≤ 16) is one 64-bit "window": two plain word reads, a shift and
 *   a mask. The fingerprint is then matched against all lanes at once (SWAR zero-lane test,
 *   exact: (x − lows) &amp; ~x &amp; highs ≠ 0 iff some lane of x is 0, with x = window ^ fp·lows).
 *   Buckets wider than 64 bits (b = 8 and f &gt; 8) are read as two windows of four lanes.
 *
 * Indexing (partial-key cuckoo hashing, Fan et al., CoNEXT 2014), for a 64-bit hash h:
 *   fp = low f bits of h, 0 mapped to 1;
 *   l1 = ((h &gt;&gt;&gt; 32) · n) &gt;&gt;&gt; 32                         multiply-shift, no division;
 *   l2 = alt(l1, fp) = (n − l1 − r(fp)) mod n, r(fp) odd in [1, n−1].
 *   alt is an involution and, n being even, never maps a bucket to itself (n − 2l is even, r is
 *   odd), so the table can be sized to any even bucket count instead of a power of two.
 *   A table made of m segments (growth, see FilterCore) picks a segment from other hash bits and
 *   applies l1/l2 inside it; all tables share n, so a key has the same bucket pair (l1, l2) in
 *   every table and two keys that collide in a larger table collide in every smaller one. That
 *   makes a delete of a key that was added safe whichever table the matching copy is in.
 *
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
 *   from B to A (CollidingKeyChurnHidesNoResidentKeyTest). Every such hiding move starts with a
 *   put of fp into the pair while the pair already holds fp, so:
 *     - a kick is stamped (it moves fingerprints);
 *     - an add is stamped if either bucket of the pair already holds fp;
 *     - a write into a slot that spans two words (f not dividing 64) is stamped, since it takes
 *       two stores and a half-written slot could match another fingerprint
 *       (NoPhantomFingerprintFromAHalfWrittenSlotTest);
 *     - every other add, and every delete, is a single-word store without stamps.
 *   Why a negative answer stays linearizable: let P be the first put of fp into the pair after
 *   the reader's first bucket read. If P comes before its last read and is stamped, the reader
 *   retries. If it is unstamped, the pair held no fp just before P: that instant is the answer's
 *   linearization point. If there is no such P, copies only disappeared in between, and the
 *   instant of the last read sees none in either bucket. Not bracketing deletes and most adds
 *   matters for readers beside a writer: each stamp write takes a cache line away from them.
 *   count is exact under the owner's lock (FilterCore); unlocked, an unstamped delete from A and
 *   an add into B between its two reads would count one copy twice.
 * </pre>
 */
public final class Table extends TablePadTail {

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final long MIX = 0x9E3779B97F4A7C15L;

  /** Items stored in this table; written under the owner's lock. */
  long items;

  // Breadth-first search scratch, used under the owner's lock only.
  private final long[] qBucket;
  private final long[] qBase;
  private final int[] qParent;
  private final int[] qSlot;
  private final int[] marked;

  /**
   * @param fingerprintBits f in [4, 16]
   * @param bucketSize b in {2, 4, 8}
   * @param localBuckets n, even, at least 2
   * @param segments m, at least 1, n·m·b·f/64 must fit an array
   * @param maxKicks nodes the kick search may visit
   */
  Table(int fingerprintBits, int bucketSize, int localBuckets, int segments, int maxKicks) {
    this(fingerprintBits, bucketSize, localBuckets, segments, maxKicks, null);
  }

  Table(int f, int b, int n, int m, int maxKicks, long[] words) {
    super(f, b, n, m, words != null ? words : new long[wordCount(f, b, n, m)]);
    int q = maxKicks + 2;
    this.qBucket = new long[q];
    this.qBase = new long[q];
    this.qParent = new int[q];
    this.qSlot = new int[q];
    this.marked = new int[q + 1];
  }

  /** Words needed for the bit-packed buckets plus the spare word, or -1 if more than an array holds. */
  static long wordCountOrMinus1(int f, int b, int n, long m) {
    long bits = (long) n * m * b * f;
    if (bits < 0 || bits / ((long) b * f) != (long) n * m) {
      return -1;
    }
    long words = (bits + 63) / 64 + 1;
    return words > Integer.MAX_VALUE - 16 ? -1 : words;
  }

  /** Words of a one-segment table, or -1 if more than an array holds. */
  public static long wordCountOrMinus1Public(int f, int b, int n) {
    return wordCountOrMinus1(f, b, n, 1);
  }

  static int wordCount(int f, int b, int n, int m) {
    long words = wordCountOrMinus1(f, b, n, m);
    if (words < 0) {
      throw new IllegalArgumentException(
          "a table of " + ((long) n * m) + " buckets of " + b + " x " + f
              + "-bit slots is larger than a Java array can index; lower expectedInsertions");
    }
    return (int) words;
  }

  // ---- hash to position (shared by every table of a filter: same n) ----

  static long fingerprint(long hash, long slotMask) {
    long fp = hash & slotMask;
    return fp | ((fp - 1) >>> 63);
  }

  static int primaryIndex(long hash, int n) {
    return (int) (((hash >>> 32) * n) >>> 32);
  }

  static int altIndex(int l, long fp, int n, int half) {
    long m = (fp * MIX) >>> 32;
    int r = (int) ((m * half) >>> 32) * 2 + 1;
    int t = n - l - r;
    return t + ((t >> 31) & n);
  }

  int alt(int l, long fp) {
    return altIndex(l, fp, localBuckets, half);
  }

  /** First bucket of the segment this hash falls into. */
  long segmentBase(long hash) {
    if (segments == 1) {
      return 0;
    }
    long x = (hash ^ (hash >>> 33)) * 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    long seg = ((x >>> 32) * segments) >>> 32;
    return seg * localBuckets;
  }

  // ---- reads ----

  private long window(long bitPos) {
    int w = (int) (bitPos >>> 6);
    int off = (int) bitPos & 63;
    if (aligned) {
      return (data[w] >>> off) & windowMask;
    }
    return ((data[w] >>> off) | ((data[w + 1] << 1) << (63 - off))) & windowMask;
  }

  private long slot(long bucket, int j) {
    long pos = bucket * bucketBits + (long) j * fingerprintBits;
    int w = (int) (pos >>> 6);
    int off = (int) pos & 63;
    return ((data[w] >>> off) | ((data[w + 1] << 1) << (63 - off))) & slotMask;
  }

  private boolean matches(long b1, long b2, long fp) {
    long rep = fp * lows;
    long p1 = b1 * bucketBits;
    long p2 = b2 * bucketBits;
    long x = window(p1) ^ rep;
    long y = window(p2) ^ rep;
    long hit = ((x - lows) & ~x) | ((y - lows) & ~y);
    if (windows == 2) {
      x = window(p1 + windowBits) ^ rep;
      y = window(p2 + windowBits) ^ rep;
      hit |= ((x - lows) & ~x) | ((y - lows) & ~y);
    }
    return (hit & highs) != 0;
  }

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
      boolean found = matches(b1, b2, fp);
      if (unchanged(s1, s2, v1, v2)) {
        return found;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * Copies of {@code fp} in the two buckets; caller holds the owner's lock. Unlocked, a kick
   * moving {@code fp} between the buckets could be counted twice or not at all
   * (CountIsExactWhileAKickMovesTheFingerprintTest), and so could an unstamped delete and add.
   */
  int count(long fp, long b1, long b2) {
    int c = 0;
    for (int j = 0; j < bucketSize; j++) {
      if (slot(b1, j) == fp) {
        c++;
      }
      if (slot(b2, j) == fp) {
        c++;
      }
    }
    return c;
  }

  /**
   * True if no writer was inside stripes {@code s1}, {@code s2} when their stamps read
   * {@code v1}, {@code v2} and none has entered since: the bucket reads made in between saw one
   * unchanging state.
   */
  private boolean unchanged(int s1, int s2, long v1, long v2) {
    VarHandle.acquireFence();
    return ((v1 | v2) & 1) == 0
        && v1 == (long) LONGS.getOpaque(stamps, s1)
        && v2 == (long) LONGS.getOpaque(stamps, s2);
  }

  // ---- writes: caller holds the owner's lock ----

  private void write(long bucket, int j, long oldFp, long newFp) {
    long pos = bucket * bucketBits + (long) j * fingerprintBits;
    int w = (int) (pos >>> 6);
    int off = (int) pos & 63;
    long delta = oldFp ^ newFp;
    LONGS.setRelease(data, w, data[w] ^ (delta << off));
    if (off + fingerprintBits > 64) {
      LONGS.setRelease(data, w + 1, data[w + 1] ^ (delta >>> (64 - off)));
    }
  }

  /** The first empty slot of {@code bucket}, or -1. */
  private int freeSlot(long bucket) {
    return slotOf(bucket, 0);
  }

  /**
   * Writes one slot of one bucket, inside an odd stamp of that bucket if {@code stamped} or if the
   * slot spans two words (see Concurrency).
   */
  private void writeSlot(long bucket, int j, long oldFp, long newFp, boolean stamped) {
    if (!stamped && !spans(bucket, j)) {
      write(bucket, j, oldFp, newFp);
      return;
    }
    int s = stripe(bucket);
    long v = stamps[s];
    LONGS.setOpaque(stamps, s, v + 1);
    VarHandle.storeStoreFence();
    write(bucket, j, oldFp, newFp);
    LONGS.setRelease(stamps, s, v + 2);
  }

  private boolean spans(long bucket, int j) {
    long pos = bucket * bucketBits + (long) j * fingerprintBits;
    return ((int) pos & 63) + fingerprintBits > 64;
  }

  /** Places {@code fp} in an empty slot of either bucket, without moving anything. */
  boolean tryPlace(long fp, long b1, long b2) {
    int j = freeSlot(b1);
    long bucket = b1;
    if (j < 0) {
      j = freeSlot(b2);
      bucket = b2;
      if (j < 0) {
        return false;
      }
    }
    boolean pairHoldsFp = slotOf(b1, fp) >= 0 || slotOf(b2, fp) >= 0;
    writeSlot(bucket, j, 0, fp, pairHoldsFp);
    items++;
    return true;
  }

  /**
   * Stores {@code fp} by moving other fingerprints along the shortest path found by a
   * breadth-first search of at most {@code maxKicks} nodes. Returns false, with the table
   * unchanged, if there is no such path. Call only after {@link #tryPlace} failed.
   */
  boolean kickInsert(long fp, long b1, long b2, long base) {
    int cap = qBucket.length;
    int tail = 0;
    qBucket[tail] = b1;
    qBase[tail] = base;
    qParent[tail] = -1;
    qSlot[tail] = -1;
    tail++;
    qBucket[tail] = b2;
    qBase[tail] = base;
    qParent[tail] = -1;
    qSlot[tail] = -1;
    tail++;
    for (int head = 0; head < tail; head++) {
      long x = qBucket[head];
      long xb = qBase[head];
      for (int j = 0; j < bucketSize; j++) {
        long v = slot(x, j);
        long y = xb + alt((int) (x - xb), v);
        int e = freeSlot(y);
        if (e >= 0) {
          if (validPath(head, j)) {
            execute(head, j, y, e, fp);
            items++;
            return true;
          }
        } else if (tail < cap) {
          qBucket[tail] = y;
          qBase[tail] = xb;
          qParent[tail] = head;
          qSlot[tail] = j;
          tail++;
        }
      }
    }
    return false;
  }

  /** A path must not displace the same slot twice (a bucket may repeat with another slot). */
  private boolean validPath(int node, int slot) {
    for (int a = node, sa = slot; a >= 0; sa = qSlot[a], a = qParent[a]) {
      for (int c = qParent[a], sc = qSlot[a]; c >= 0; sc = qSlot[c], c = qParent[c]) {
        if (qBucket[c] == qBucket[a] && sc == sa) {
          return false;
        }
      }
    }
    return true;
  }

  private void execute(int node, int slot, long free, int freeSlot, long fp) {
    int nMarked = 0;
    nMarked = mark(free, nMarked);
    for (int a = node; a >= 0; a = qParent[a]) {
      nMarked = mark(qBucket[a], nMarked);
    }
    VarHandle.storeStoreFence();

    long moving = slot(qBucket[node], slot);
    write(free, freeSlot, 0, moving);
    int a = node;
    int sa = slot;
    while (true) {
      long bucket = qBucket[a];
      long current = slot(bucket, sa);
      int parent = qParent[a];
      long incoming = parent < 0 ? fp : slot(qBucket[parent], qSlot[a]);
      write(bucket, sa, current, incoming);
      if (parent < 0) {
        break;
      }
      sa = qSlot[a];
      a = parent;
    }

    for (int i = 0; i < nMarked; i++) {
      int s = marked[i];
      LONGS.setRelease(stamps, s, stamps[s] + 1);
    }
  }

  private int mark(long bucket, int nMarked) {
    int s = stripe(bucket);
    long v = stamps[s];
    if ((v & 1) == 0) {
      LONGS.setOpaque(stamps, s, v + 1);
      marked[nMarked++] = s;
    }
    return nMarked;
  }

  /** Clears one copy of {@code fp} from either bucket; false if neither holds it. */
  boolean delete(long fp, long b1, long b2) {
    int j = slotOf(b1, fp);
    if (j >= 0) {
      writeSlot(b1, j, fp, 0, false);
      items--;
      return true;
    }
    j = slotOf(b2, fp);
    if (j >= 0) {
      writeSlot(b2, j, fp, 0, false);
      items--;
      return true;
    }
    return false;
  }

  /**
   * The first slot of {@code bucket} holding {@code fp} (0: the first empty one), or -1. SWAR on
   * x = window ^ fp·lows: the lowest lane flagged by (x − lows) &amp; ~x &amp; highs is exactly the
   * lowest zero lane of x (a borrow starts only at a zero lane, so it can flag lanes above the
   * first match, never below it).
   */
  private int slotOf(long bucket, long fp) {
    long rep = fp * lows;
    long p = bucket * bucketBits;
    long x = window(p) ^ rep;
    long z = (x - lows) & ~x & highs;
    if (z != 0) {
      return Long.numberOfTrailingZeros(z) / fingerprintBits;
    }
    if (windows == 2) {
      x = window(p + windowBits) ^ rep;
      z = (x - lows) & ~x & highs;
      if (z != 0) {
        return bucketSize / 2 + Long.numberOfTrailingZeros(z) / fingerprintBits;
      }
    }
    return -1;
  }

  long slots() {
    return totalBuckets * bucketSize;
  }

  long bytes() {
    return (long) data.length * Long.BYTES;
  }

  /** Counts occupied slots by scanning; used to validate loaded dumps. */
  long countOccupied() {
    long c = 0;
    for (long i = 0; i < totalBuckets; i++) {
      for (int j = 0; j < bucketSize; j++) {
        if (slot(i, j) != 0) {
          c++;
        }
      }
    }
    return c;
  }

  /** True if the bits past the last bucket (padding) are all zero; used to validate dumps. */
  boolean paddingIsClear() {
    long usedBits = totalBuckets * bucketBits;
    int w = (int) (usedBits >>> 6);
    int off = (int) usedBits & 63;
    if (off != 0 && (data[w] >>> off) != 0) {
      return false;
    }
    for (int i = off == 0 ? w : w + 1; i < data.length; i++) {
      if (data[i] != 0) {
        return false;
      }
    }
    return true;
  }
}

/*
 * Field layout of Table, against false sharing: lookups read the fields of TableFields on every
 * call; the writer writes Table.items and, through the lock, objects that may sit next to a Table
 * in memory. Superclass fields are laid out first, so TableFields' fields start at least 64 bytes
 * after the object's start and end at least 64 bytes before Table's own fields (JCTools' and
 * Caffeine's padding idiom).
 */

/** Padding before the fields lookups read. */
@SuppressWarnings("unused")
abstract class TablePadHead {
  int p00;
  long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** What lookups read: immutable after construction. */
abstract class TableFields extends TablePadHead {

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
  final long[] stamps;
  final int stampMask;

  TableFields(int f, int b, int n, int m, long[] words) {
    this.fingerprintBits = f;
    this.bucketSize = b;
    this.localBuckets = n;
    this.segments = m;
    this.totalBuckets = (long) n * m;
    this.bucketBits = b * f;
    this.slotMask = (1L << f) - 1;
    this.half = n >>> 1;
    this.windows = bucketBits <= 64 ? 1 : 2;
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
    this.data = words;
    int stripes = (int) Math.min(STAMP_STRIPES, Long.highestOneBit(Math.max(1, totalBuckets)));
    this.stamps = new long[stripes + 2 * STAMP_PAD];
    this.stampMask = stripes - 1;
  }

  /** Index in {@link #stamps} of the stripe that guards {@code bucket}. */
  final int stripe(long bucket) {
    return ((int) bucket & stampMask) + STAMP_PAD;
  }
}

/** Padding between the fields lookups read and the fields writers write. */
@SuppressWarnings("unused")
abstract class TablePadTail extends TableFields {
  long q01, q02, q03, q04, q05, q06, q07, q08;

  TablePadTail(int f, int b, int n, int m, long[] words) {
    super(f, b, n, m, words);
  }
}
