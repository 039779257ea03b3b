package io.github.cuckooguard;

import static io.github.cuckooguard.FilterSubject.dump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Filling filters until an add fails: where the first failure comes, that a failed add changes
 * nothing (compared bit for bit through {@code writeTo}), that nothing stored before is lost, and
 * how expansion grows sub-filters up to the limit.
 */
class FullFilterTest {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** Distinct keys: an odd multiplier is a bijection on longs. */
  private static long key(long i, long seed) {
    return (i + 1) * GOLDEN ^ seed;
  }

  /**
   * The sizing promise at the default bucket size: the first insert that fails comes at a load of
   * at least 0.95 (the design load), so a fixed-size filter holds its expected insertions. Keys are
   * {@code (i + 1) * 0x9E3779B97F4A7C15 ^ seed}, the filter's seed is the same {@code seed}.
   * Measured loads at the first failure (10-bit fingerprints, the default fpp): capacity 1,000:
   * 0.9754 / 0.9763 / 0.9839 (seeds 1 / 2 / 3); 10,000: 0.9749 / 0.9744 (seeds 4 / 5); 100,000:
   * 0.9729 (seed 6); 1,000,000: 0.9703 (seed 7). Smaller tables fill less evenly: see {@link
   * AbstractFilterBuilder#expectedInsertions}.
   */
  @ParameterizedTest(name = "capacity {0}, seed {1}")
  @CsvSource({"1000, 1", "1000, 2", "1000, 3", "10000, 4", "10000, 5", "100000, 6", "1000000, 7"})
  void firstFailedInsertComesAtLoadOfAtLeast95PercentWithFourSlotBuckets(long capacity, long seed) {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder().expectedInsertions(capacity).expansion(0).seed(seed).build();
    long added = 0;
    while (filter.add(key(added, seed))) {
      added++;
    }
    assertThat(filter.loadFactor())
        .as("load at the first failed insert")
        .isGreaterThanOrEqualTo(0.95);
    assertThat(added).as("keys held before the first failure").isGreaterThanOrEqualTo(capacity);
    assertEveryKeyFound(filter, added, seed);
  }

  @ParameterizedTest(name = "f={0} b={1}")
  @CsvSource({"8, 2", "8, 4", "12, 4", "12, 8", "16, 8", "4, 4"})
  void failedAddLeavesTheFilterBitForBitUnchangedAndLosesNothing(int f, int b) {
    long seed = 21;
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(2_000)
            .fingerprintBits(f)
            .bucketSize(b)
            .expansion(0)
            .seed(seed)
            .build();
    List<Long> added = new ArrayList<>();
    long next = 0;
    while (filter.add(key(next, seed))) {
      added.add(key(next++, seed));
    }
    // Keep offering new keys: each either fits somewhere (kicks) or fails without a trace.
    int failures = 0;
    for (int i = 0; i < 300; i++) {
      long k = key(next++, seed);
      byte[] before = dump(filter);
      if (filter.add(k)) {
        added.add(k);
      } else {
        failures++;
        assertThat(dump(filter)).as("state after a failed add of key %s", k).isEqualTo(before);
        assertThat(filter.addIfAbsent(k)).isEqualTo(mightContainOrFull(filter, k));
        assertThat(dump(filter)).as("state after a FULL add-if-absent").isEqualTo(before);
      }
    }
    assertThat(failures).as("failed adds among 300 offered").isGreaterThan(100);
    assertThat(filter.approximateElementCount()).isEqualTo(added.size());
    for (long k : added) {
      assertThat(filter.mightContain(k)).as("key %s", k).isTrue();
    }
  }

  private static void assertEveryKeyFound(LongCuckooFilter filter, long count, long seed) {
    for (long i = 0; i < count; i++) {
      if (!filter.mightContain(key(i, seed))) {
        fail("false negative for key %s of %s", i, count);
      }
    }
  }

  private static AddResult mightContainOrFull(LongCuckooFilter filter, long key) {
    return filter.mightContain(key) ? AddResult.ALREADY_PRESENT : AddResult.FULL;
  }

  @Test
  void expansionOneAppendsEqualSubFiltersUpToThirtyTwoThenRejects() {
    long seed = 31;
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder().expectedInsertions(100).expansion(1).seed(seed).build();
    long bucketsPerSubFilter = filter.info().buckets();
    long added = 0;
    int subFilters = 1;
    while (filter.add(key(added, seed))) {
      added++;
      int now = filter.info().subFilters();
      assertThat(now).as("sub-filters never jump").isBetween(subFilters, subFilters + 1);
      subFilters = now;
    }
    FilterInfo info = filter.info();
    assertThat(info.subFilters()).isEqualTo(32);
    assertThat(info.buckets()).isEqualTo(32 * bucketsPerSubFilter);
    assertThat(info.itemsInserted()).isEqualTo(added);
    assertThat(info.loadFactor()).as("load over all 32 sub-filters").isGreaterThan(0.95);
    assertEveryKeyFound(filter, added, seed);
    byte[] before = dump(filter);
    for (long i = added; i < added + 50; i++) {
      if (!filter.add(key(i, seed))) {
        assertThat(dump(filter)).isEqualTo(before);
      } else {
        before = dump(filter);
      }
    }
    assertThat(filter.info().subFilters()).isEqualTo(32);
  }

  @Test
  void expansionTwoDoublesEachNewSubFilter() {
    long seed = 41;
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder().expectedInsertions(64).expansion(2).seed(seed).build();
    long base = filter.info().buckets();
    long added = 0;
    while (filter.info().subFilters() < 12) {
      assertThat(filter.add(key(added++, seed))).isTrue();
    }
    // Sub-filter t has 2^t times the buckets of the first: base * (2^12 - 1) in all.
    assertThat(filter.info().buckets()).isEqualTo(base * ((1L << 12) - 1));
    // A new sub-filter is appended only when the newest one overflows. Sub-filter t is 2^t
    // segments of `base` buckets and kicks stay inside a segment, so with a small base the first
    // overflowing segment comes early: measured 0.93 load at t = 2, 0.81 at t = 11 (and 0.72 at
    // t = 18) for this 64-key base, against 0.97-1.00 at every t with expansion 1.
    assertThat((double) added / (base * 4 * ((1L << 11) - 1)))
        .as("load of the first 11 sub-filters")
        .isGreaterThan(0.78);
    assertEveryKeyFound(filter, added, seed);
  }

  /**
   * With a huge expansion the third sub-filter (2^30 segments) would exceed a Java array: the
   * filter stops growing and rejects adds instead, losing nothing.
   */
  @Test
  void growthStopsWhenTheNextSubFilterWouldNotFitAJavaArray() {
    long seed = 51;
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(1)
            .bucketSize(8)
            .fingerprintBits(16)
            .expansion(32768)
            .seed(seed)
            .build();
    assertThat(filter.info().buckets()).isEqualTo(2);
    long added = 0;
    while (filter.add(key(added, seed))) {
      added++;
    }
    FilterInfo info = filter.info();
    assertThat(info.subFilters()).isEqualTo(2);
    assertThat(info.buckets()).isEqualTo(2 + 2 * 32768);
    assertThat(added).isGreaterThan(1000);
    assertEveryKeyFound(filter, added, seed);
  }

  @Test
  void aKeyAddedMoreOftenThanItsBucketsHoldIsRefusedWithoutGrowingFixedOrExpandable() {
    LongCuckooFilter fixed =
        LongCuckooFilter.newBuilder().expectedInsertions(1000).expansion(0).seed(61).build();
    LongCuckooFilter growing =
        LongCuckooFilter.newBuilder().expectedInsertions(1000).expansion(1).seed(61).build();
    for (int i = 0; i < 8; i++) { // two buckets of four slots
      assertThat(fixed.add(42)).isTrue();
      assertThat(growing.add(42)).isTrue();
    }
    byte[] before = dump(fixed);
    assertThat(fixed.add(42)).as("ninth copy in a fixed filter").isFalse();
    assertThat(dump(fixed)).isEqualTo(before);
    assertThat(fixed.count(42)).isEqualTo(8);

    // Growth cannot lift the limit; before, each 8 copies appended a sub-filter.
    byte[] grownBefore = dump(growing);
    assertThat(growing.add(42)).as("ninth copy in an expandable filter").isFalse();
    assertThat(dump(growing)).as("nothing changed, no sub-filter appended").isEqualTo(grownBefore);
    assertThat(growing.info().subFilters()).isEqualTo(1);
    assertThat(growing.count(42)).isEqualTo(8);
    assertThat(growing.mightContain(42)).isTrue();
  }
}
