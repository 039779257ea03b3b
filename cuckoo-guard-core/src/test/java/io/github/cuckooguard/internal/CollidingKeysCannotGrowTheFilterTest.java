package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keys that share a fingerprint and a bucket pair cannot be separated by any kick (a kick moves a
 * copy only to the other bucket of its pair), so before they grew the filter by a sub-filter per
 * 2·b adds. They now share the one limit of 2·b copies.
 */
class CollidingKeysCannotGrowTheFilterTest {

  private static final int BUCKETS = 64;

  @ParameterizedTest(name = "expansion {0}")
  @ValueSource(ints = {1, 2})
  void keysSharingAFingerprintAndABucketPairStoreAtMostTwoBucketsOfCopies(int expansion) {
    FilterCore core = new FilterCore(8, 4, BUCKETS, 100, expansion, 1);
    long base = hash(10, 0x5A, BUCKETS);
    int stored = 0;
    for (int i = 0; i < 200; i++) {
      // other bits between the fingerprint and the bucket index: another key, same fp and pair
      long h = base ^ ((long) i << 8);
      assertThat(BucketIndex.primaryIndex(h, BUCKETS)).isEqualTo(10);
      if (core.add(h)) {
        stored++;
      }
    }
    assertThat(stored).isEqualTo(8);
    assertThat(core.subFilters()).isEqualTo(1);
    assertThat(core.count(base)).isEqualTo(8);
  }
}
