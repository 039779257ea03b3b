package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Growth has limits it cannot lift. One hot key stored 256 copies in 32 sub-filters (expansion 1),
 * or allocated 708 MB and then caught an OutOfMemoryError on every add (expansion 2). Now a key's
 * bucket pair takes at most 2·b copies over all sub-filters, and growth stops at {@code maxBytes}
 * before it allocates.
 */
class GrowthLimitsTest {

  @ParameterizedTest(name = "expansion {0}, bucket size {1}")
  @CsvSource({"1, 4", "2, 4", "2, 2", "1, 8"})
  void oneHotKeyStoresTwoBucketsOfCopiesAndNeverGrowsTheFilter(int expansion, int bucketSize) {
    LongCuckooFilter f =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(1_000)
            .expansion(expansion)
            .bucketSize(bucketSize)
            .seed(8)
            .build();
    long bytes = f.sizeInBytes();
    int stored = 0;
    for (int i = 0; i < 10_000; i++) {
      if (f.add(77)) {
        stored++;
      }
    }
    assertThat(stored).isEqualTo(2 * bucketSize);
    assertThat(f.count(77)).isEqualTo(2 * bucketSize);
    assertThat(f.info().subFilters()).isEqualTo(1);
    assertThat(f.sizeInBytes()).isEqualTo(bytes);
    assertThat(f.mightContain(77)).isTrue();
    // the refusals changed nothing: every copy can be removed again, then the key is gone
    for (int i = 0; i < stored; i++) {
      assertThat(f.remove(77)).isTrue();
    }
    assertThat(f.mightContain(77)).isFalse();
  }

  /** A key whose pair gets full only once the filter has grown for other keys is limited too. */
  @ParameterizedTest(name = "expansion {0}")
  @ValueSource(ints = {1, 2})
  void theCopyLimitCountsEverySubFilter(int expansion) {
    LongCuckooFilter f =
        LongCuckooFilter.newBuilder().expectedInsertions(200).expansion(expansion).seed(3).build();
    for (long k = 1_000; f.info().subFilters() < 3; k++) {
      assertThat(f.add(k)).isTrue();
    }
    int stored = 0;
    for (int i = 0; i < 1_000; i++) {
      if (f.add(5)) {
        stored++;
      }
    }
    assertThat(stored)
        .as("copies of one key over %s sub-filters", f.info().subFilters())
        .isEqualTo(8);
    assertThat(f.count(5)).isEqualTo(8);
  }

  /**
   * Growth stops at maxBytes, checked before allocating: the add that would need more returns false
   * quickly, and nothing stored is lost.
   */
  @ParameterizedTest(name = "expansion {0}")
  @ValueSource(ints = {1, 2, 4})
  void growthStopsAtMaxBytesAndLosesNothing(int expansion) {
    long bound = 16 * 1024;
    LongCuckooFilter f =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(1_000)
            .expansion(expansion)
            .maxBytes(bound)
            .seed(11)
            .build();
    long k = 0;
    while (f.add(k)) {
      k++;
    }
    assertThat(f.sizeInBytes()).isLessThanOrEqualTo(bound);
    assertThat(f.info().subFilters()).isGreaterThan(1).isLessThan(32);
    for (long extra = 0; extra < 1_000; extra++) {
      f.add(10_000_000 + extra * 7919); // may still fit by kicks; never grows past the bound
    }
    assertThat(f.sizeInBytes()).isLessThanOrEqualTo(bound);
    for (long key = 0; key < k; key++) {
      assertThat(f.mightContain(key)).as("key %s", key).isTrue();
    }
  }
}
