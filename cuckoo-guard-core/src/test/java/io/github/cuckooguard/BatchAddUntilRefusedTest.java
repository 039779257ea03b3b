package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LongCuckooFilter#addAll(long[], int, int)}: the keys it reports added are stored, exactly
 * that many, the refused key and the ones after it are not, and nothing stored before is lost; on
 * 8- and 16-bit filters (the specialised add path) and 12-bit ones (the general one). Keys are
 * distinct draws of a seeded {@link SplittableRandom} (seed per test, below).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BatchAddUntilRefusedTest {

  private static long[] distinctKeys(int count, long seed) {
    // odd multiples of a random odd constant plus an offset are distinct mod 2^64
    SplittableRandom r = new SplittableRandom(seed);
    long step = r.nextLong() | 1;
    long base = r.nextLong();
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = base + step * i;
    }
    return keys;
  }

  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {8, 12, 16})
  void addsExactlyTheRangeAndEveryKeyIsFound(int f) {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(50_000)
            .fingerprintBits(f)
            .expansion(0)
            .seed(16)
            .build();
    long[] keys = distinctKeys(47_000, 1601); // 94 % of the design load: every key fits
    assertThat(filter.addAll(keys, 0, 3000)).isEqualTo(3000);
    assertThat(filter.approximateElementCount()).isEqualTo(3000);
    // a range in the middle, longer than one lock batch of 1,024, then the rest
    assertThat(filter.addAll(keys, 3000, 2500)).isEqualTo(2500);
    assertThat(filter.approximateElementCount()).isEqualTo(5500);
    assertThat(filter.addAll(keys, 5500, keys.length - 5500)).isEqualTo(keys.length - 5500);
    assertThat(filter.approximateElementCount()).isEqualTo(keys.length);
    assertThat(filter.addAll(keys, 10, 0)).isZero();
    for (long k : keys) {
      assertThat(filter.mightContain(k)).as("key %d", k).isTrue();
    }
    // exactly one stored copy per key: every remove finds one, and then the filter is empty
    for (long k : keys) {
      assertThat(filter.remove(k)).isTrue();
    }
    assertThat(filter.approximateElementCount()).isZero();
  }

  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {8, 12, 16})
  void aFullFilterStopsAtTheRefusedKeyAndLosesNothing(int f) {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(4_000)
            .fingerprintBits(f)
            .expansion(0)
            .seed(17)
            .build();
    long[] before = distinctKeys(2_000, 1602);
    assertThat(filter.addAll(before, 0, before.length)).isEqualTo(before.length);
    long[] more = distinctKeys(20_000, 1603); // far more than the table's slots
    int added = filter.addAll(more, 0, more.length);
    assertThat(added).isBetween(1, more.length - 1);
    assertThat(filter.approximateElementCount()).isEqualTo(before.length + added);
    for (long k : before) {
      assertThat(filter.mightContain(k)).as("key stored before the batch").isTrue();
    }
    for (int i = 0; i < added; i++) {
      assertThat(filter.mightContain(more[i])).as("key %d of the batch", i).isTrue();
    }
    // The refused key was not stored: removing every stored key empties the filter exactly, and
    // every one of those removes finds a copy.
    for (long k : before) {
      assertThat(filter.remove(k)).isTrue();
    }
    for (int i = 0; i < added; i++) {
      assertThat(filter.remove(more[i])).isTrue();
    }
    assertThat(filter.approximateElementCount()).isZero();
  }

  @Test
  void aFilterThatCanGrowGrowsInTheMiddleOfABatch() {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(2_000)
            .fingerprintBits(16)
            .expansion(2)
            .seed(18)
            .build();
    long[] keys = distinctKeys(20_000, 1604);
    assertThat(filter.addAll(keys, 0, keys.length)).isEqualTo(keys.length);
    assertThat(filter.info().subFilters()).isGreaterThan(1);
    assertThat(filter.approximateElementCount()).isEqualTo(keys.length);
    for (long k : keys) {
      assertThat(filter.mightContain(k)).as("key %d", k).isTrue();
    }
  }

  @Test
  void aKeyWhosePairIsFullOfItsFingerprintIsRefusedAndTheRestNotAdded() {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(1_000)
            .fingerprintBits(16)
            .seed(19)
            .build();
    long[] same = new long[20];
    Arrays.fill(same, 42L);
    // 2 buckets of 4 slots hold 8 copies of one fingerprint; the 9th add is refused
    assertThat(filter.addAll(same, 0, same.length)).isEqualTo(8);
    assertThat(filter.count(42L)).isEqualTo(8);
    assertThat(filter.approximateElementCount()).isEqualTo(8);
  }

  @Test
  void rangesOutsideTheArrayAreRejected() {
    LongCuckooFilter filter = LongCuckooFilter.newBuilder().expectedInsertions(100).build();
    long[] keys = new long[10];
    assertThatThrownBy(() -> filter.addAll(keys, 5, 6))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> filter.addAll(keys, -1, 2))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(filter.approximateElementCount()).isZero();
  }
}
