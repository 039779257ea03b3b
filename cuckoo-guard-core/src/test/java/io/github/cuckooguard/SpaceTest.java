package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Space at the sized capacity: the table is sized to the capacity (an even bucket count), not
 * rounded up to a power of two, so bits per item stay near {@code f / 0.95} for any capacity,
 * including one just past a power of two (1,048,577 = 2^20 + 1), where power-of-two sizing would
 * cost about twice as much.
 */
class SpaceTest {

  /**
   * Filled to the capacity with the defaults (fpp 0.01: 10-bit fingerprints, b = 4), the filter
   * holds every key in its first sub-filter and costs within 5 % of 10 / 0.95 = 10.53 bits per
   * item. Measured: 1,000: 10.624 (+0.9 %, the bucket count rounds up to an even number and one
   * spare word); 1,048,577: 10.526; 3,000,001: 10.526; 10,000,019: 10.526.
   */
  @ParameterizedTest(name = "capacity {0}")
  @ValueSource(longs = {1_000, 1_048_577, 3_000_001, 10_000_019})
  void bitsPerItemAtTheSizedCapacityAreWithinFivePercentOfFingerprintBitsOver095(long capacity) {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder().expectedInsertions(capacity).seed(capacity).build();
    for (long i = 0; i < capacity; i++) {
      if (!filter.add(i)) {
        fail("add %s failed below the sized capacity", i);
      }
    }
    FilterInfo info = filter.info();
    assertThat(info.subFilters()).as("no growth up to the sized capacity").isEqualTo(1);
    assertThat(info.itemsInserted()).isEqualTo(capacity);
    double target = info.fingerprintBits() / 0.95;
    assertThat(info.fingerprintBits()).isEqualTo(10);
    assertThat(info.bitsPerItem()).isCloseTo(target, within(0.05 * target));
    assertThat(info.sizeInBytes()).isEqualTo(filter.sizeInBytes());
  }
}
