package io.github.cuckooguard;

/**
 * A snapshot of a filter's shape and fill, the fields of RedisBloom's {@code CF.INFO} plus the
 * figures a Java user sizes by. Fields are read without the writer lock, so under concurrent writes
 * they are individually accurate but not one atomic snapshot.
 *
 * @param sizeInBytes bytes of fingerprint storage (CF.INFO "Size")
 * @param buckets buckets over all sub-filters (CF.INFO "Number of buckets" counts the first only)
 * @param subFilters sub-filters (CF.INFO "Number of filters")
 * @param itemsInserted fingerprints currently stored (CF.INFO "Number of items inserted")
 * @param itemsDeleted successful removes since creation (CF.INFO "Number of items deleted")
 * @param bucketSize slots per bucket (CF.INFO "Bucket size")
 * @param expansion growth factor of each new sub-filter, 0 for a fixed size (CF.INFO "Expansion
 *     rate")
 * @param maxKicks kick-search budget per insert (CF.INFO "Max iterations")
 * @param loadFactor {@code itemsInserted / (buckets × bucketSize)}
 * @param fingerprintBits bits per fingerprint of the first sub-filter (those growth adds are wider:
 *     see {@link AbstractFilterBuilder#expansion})
 * @param expectedFpp the false-positive probability the current fill predicts
 */
public record FilterInfo(
    long sizeInBytes,
    long buckets,
    int subFilters,
    long itemsInserted,
    long itemsDeleted,
    int bucketSize,
    int expansion,
    int maxKicks,
    double loadFactor,
    int fingerprintBits,
    double expectedFpp) {

  /** Bits of storage per stored item, the space figure filters are compared by. */
  public double bitsPerItem() {
    return itemsInserted == 0 ? Double.NaN : sizeInBytes * 8.0 / itemsInserted;
  }
}
