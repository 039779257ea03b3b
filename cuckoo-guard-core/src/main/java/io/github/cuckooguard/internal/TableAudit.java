package io.github.cuckooguard.internal;

/**
 * Checks of a table read from a dump, before it becomes part of a filter: no bits past the last
 * bucket, and the number of occupied slots (which the dump header's item counts must equal).
 */
final class TableAudit {

  private TableAudit() {}

  /** Counts occupied slots by scanning. */
  static long countOccupied(Table t) {
    long c = 0;
    for (long i = 0; i < t.totalBuckets; i++) {
      for (int j = 0; j < t.bucketSize; j++) {
        if (t.read(i, j) != 0) {
          c++;
        }
      }
    }
    return c;
  }

  /** True if the bits past the last bucket (padding and the spare word) are all zero. */
  static boolean paddingIsClear(Table t) {
    long[] data = t.data;
    long usedBits = t.usedBits();
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
