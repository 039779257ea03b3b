package io.github.cuckooguard.internal;

import java.lang.invoke.VarHandle;

/**
 * The kick search of one {@link Table}: breadth-first, bounded by {@code maxKicks} nodes, nothing
 * moved while searching; then the shortest path found is executed from its free end backwards, each
 * step copying a fingerprint into its new slot before the slot it came from is overwritten, so
 * every fingerprint is in one of its two buckets at every instant. Every bucket on the path is
 * inside an odd stamp while it runs (see Table's Concurrency notes), so no lock-free reader can
 * read bucket A before a fingerprint arrived there and bucket B after it left and answer false.
 *
 * <p>Used under the owner's lock only: the scratch arrays are reused by every search.
 */
final class KickPath {

  private final long[] qBucket;
  private final long[] qBase;
  private final int[] qParent;
  private final int[] qSlot;

  /** The fingerprint that moves into node i's bucket: slot qSlot[i] of its parent's. */
  private final long[] qMoved;

  private final int[] marked;

  KickPath(int maxKicks) {
    int q = maxKicks + 2;
    this.qBucket = new long[q];
    this.qBase = new long[q];
    this.qParent = new int[q];
    this.qSlot = new int[q];
    this.qMoved = new long[q];
    this.marked = new int[q + 1];
  }

  /**
   * Stores {@code fp} in {@code t} by moving other fingerprints along the shortest path found.
   * Returns false, with the table unchanged, if there is no such path within the budget.
   */
  boolean insert(Table t, long fp, long b1, long b2, long base) {
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
      for (int j = 0; j < t.bucketSize; j++) {
        long v = t.read(x, j);
        long y = xb + t.alt((int) (x - xb), v);
        int e = t.emptySlot(y);
        if (e >= 0) {
          if (validPath(head, j)) {
            execute(t, head, j, v, y, e, fp);
            return true;
          }
        } else if (tail < cap) {
          qBucket[tail] = y;
          qBase[tail] = xb;
          qParent[tail] = head;
          qSlot[tail] = j;
          qMoved[tail] = v;
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

  /**
   * Moves the fingerprints of the path ending at {@code slot} of node {@code node}, whose
   * fingerprint {@code moving} goes to the empty slot {@code freeSlot} of {@code free}. Each step
   * names the fingerprint it replaces as read by the search: nothing on the path changed since (the
   * lock is held; the free slot was empty, every displaced slot full, and no slot is displaced
   * twice, see {@link #validPath}), and a semi-sorted bucket (Table.put) finds a fingerprint by
   * value, since its slots move when the bucket is re-sorted.
   */
  private void execute(Table t, int node, int slot, long moving, long free, int freeSlot, long fp) {
    long[] stamps = t.stamps;
    int nMarked = 0;
    nMarked = mark(t, free, nMarked);
    for (int a = node; a >= 0; a = qParent[a]) {
      nMarked = mark(t, qBucket[a], nMarked);
    }
    VarHandle.storeStoreFence();

    t.put(free, freeSlot, 0, moving);
    int a = node;
    int sa = slot;
    long current = moving;
    while (true) {
      long bucket = qBucket[a];
      int parent = qParent[a];
      long incoming = parent < 0 ? fp : qMoved[a];
      t.put(bucket, sa, current, incoming);
      if (parent < 0) {
        break;
      }
      current = incoming;
      sa = qSlot[a];
      a = parent;
    }

    for (int i = 0; i < nMarked; i++) {
      int s = marked[i];
      PackedBuckets.LONGS.setRelease(stamps, s, stamps[s] + 1);
    }
  }

  /** Makes the stamp of {@code bucket}'s stripe odd unless this path already did. */
  private int mark(Table t, long bucket, int nMarked) {
    long[] stamps = t.stamps;
    int s = t.stripe(bucket);
    long v = stamps[s];
    if ((v & 1) == 0) {
      PackedBuckets.LONGS.setOpaque(stamps, s, v + 1);
      marked[nMarked++] = s;
    }
    return nMarked;
  }
}
