package io.github.cuckooguard.internal;

/**
 * Hash to position: the fingerprint, the primary bucket, the alternate bucket and the segment of a
 * 64-bit hash. Shared by every table of a filter (they all have the same {@code n} buckets per
 * segment, see {@link Table}).
 *
 * <pre>
 * Partial-key cuckoo hashing (Fan et al., CoNEXT 2014), for a 64-bit hash h:
 *   fp = low f bits of h, 0 mapped to 1;
 *   l1 = ((h &gt;&gt;&gt; 32) · n) &gt;&gt;&gt; 32                         multiply-shift, no division;
 *   l2 = alt(l1, fp) = (n − l1 − r(fp)) mod n, r(fp) odd in [1, n−1].
 *   alt is an involution and, n being even, never maps a bucket to itself (n − 2l is even, r is
 *   odd), so the table can be sized to any even bucket count instead of a power of two.
 *   A table made of m segments (growth, see FilterCore) picks a segment from other hash bits and
 *   applies l1/l2 inside it; all tables share n, so a key has the same bucket pair (l1, l2) in
 *   every table and two keys that collide in a larger table collide in every smaller one. That
 *   makes a delete of a key that was added safe whichever table the matching copy is in.
 * </pre>
 */
final class BucketIndex {

  private static final long MIX = 0x9E3779B97F4A7C15L;

  private BucketIndex() {}

  /**
   * The fingerprint: the low bits of {@code hash} under {@code slotMask}, never 0 (0 marks an empty
   * slot).
   */
  static long fingerprint(long hash, long slotMask) {
    long fp = hash & slotMask;
    return fp | ((fp - 1) >>> 63);
  }

  /** The primary bucket in [0, n): multiply-shift of the high 32 bits. */
  static int primaryIndex(long hash, int n) {
    return (int) (((hash >>> 32) * n) >>> 32);
  }

  /** The other bucket of {@code l}'s pair for {@code fp} in [0, n); {@code half} is n / 2. */
  static int altIndex(int l, long fp, int n, int half) {
    long m = (fp * MIX) >>> 32;
    int r = (int) ((m * half) >>> 32) * 2 + 1;
    int t = n - l - r;
    return t + ((t >> 31) & n);
  }

  /**
   * First bucket of the segment {@code hash} falls into, in a table of {@code segments} × {@code
   * n}.
   */
  static long segmentBase(long hash, int segments, int n) {
    if (segments == 1) {
      return 0;
    }
    long x = (hash ^ (hash >>> 33)) * 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    long seg = ((x >>> 32) * segments) >>> 32;
    return seg * n;
  }
}
