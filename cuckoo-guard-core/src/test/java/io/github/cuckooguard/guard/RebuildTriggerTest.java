package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySource;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** What starts a rebuild on its own, and how large the rebuilt filter is. */
class RebuildTriggerTest {

  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final KeySource<Long> keySource = action -> source.forEach(action);
  private final ManualExecutor executor = new ManualExecutor();
  private final RecordingListener listener = new RecordingListener();

  private CuckooGuard.Builder<Long> builder() {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .seed(5)
        .keySource(keySource)
        .executor(executor)
        .addListener(listener);
  }

  private void enter(CuckooGuard<Long> guard, long key) {
    guard.keyEntered(key);
    source.add(key);
  }

  @Test
  void passingTheLoadThresholdRebuildsAtTwiceTheSize() {
    CuckooGuard<Long> guard = builder().expectedInsertions(1_000).fpp(0.01).build();
    long k = 0;
    double loadBefore = 0;
    double loadBeforePrevious = 0;
    while (executor.pending() == 0) {
      loadBeforePrevious = loadBefore;
      loadBefore = guard.stats().loadFactor();
      enter(guard, k++);
    }
    // The enter that found the load past the threshold requested the rebuild (before its add).
    assertThat(loadBeforePrevious)
        .isLessThanOrEqualTo(io.github.cuckooguard.GuardSpec.DEFAULT_REBUILD_LOAD_THRESHOLD);
    assertThat(loadBefore)
        .isGreaterThan(io.github.cuckooguard.GuardSpec.DEFAULT_REBUILD_LOAD_THRESHOLD);
    assertThat(k - 1)
        .as("keys entered before the rebuild was requested: more than expected")
        .isGreaterThan(1_000);
    long bytesBefore = guard.stats().sizeInBytes();
    assertThat(guard.stats().rebuilding()).isTrue();
    enter(guard, k++); // further enters while queued request nothing more
    assertThat(executor.pending()).isEqualTo(1);

    executor.runAll();

    assertThat(listener.starts).singleElement().asString().startsWith("load factor");
    assertThat(guard.stats().size()).isEqualTo(k);
    // The first filter was sized for 1000 x 0.95 / 0.85 = 1118 keys (1000 keys stay below the
    // threshold), the new one for 2 x size (about 1900 keys): half the design load 0.95, and
    // bytes grown by the ratio of the capacities.
    assertThat(guard.stats().loadFactor()).isBetween(0.95 / 2 - 0.01, 0.95 / 2 + 0.005);
    double capacityRatio =
        2.0
            * k
            / Math.ceil(
                1_000 * 0.95 / io.github.cuckooguard.GuardSpec.DEFAULT_REBUILD_LOAD_THRESHOLD);
    assertThat((double) guard.stats().sizeInBytes() / bytesBefore)
        .isBetween(capacityRatio * 0.95, capacityRatio * 1.05);
    for (long key = 0; key < k; key++) {
      assertThat(guard.mightContain(key)).isTrue();
    }
  }

  @Test
  void aFilterThatHadToGrowIsRebuilt() {
    CuckooGuard<Long> guard = builder().expectedInsertions(100).rebuildLoadThreshold(1.0).build();
    long k = 0;
    while (executor.pending() == 0 && k < 10_000) {
      enter(guard, k++);
    }
    assertThat(k).as("keys until the first sub-filter was appended").isBetween(100L, 200L);
    executor.runAll();
    assertThat(listener.starts).singleElement().asString().contains("the filter grew");
    assertThat(guard.stats().size()).isEqualTo(k);
    assertThat(guard.isPassThrough()).isFalse();
  }

  /** Makes {@code misses} definite misses: lookups of keys never entered into an empty guard. */
  private static void miss(CuckooGuard<Long> guard, int misses) {
    for (long k = 0; k < misses; k++) {
      assertThat(guard.mightContain(1_000_000 + k)).isFalse();
    }
  }

  @Test
  void observedFppAboveTheDriftLimitRebuilds() {
    // target 0.01, factor 3: a rebuild is due once fp / (fp + 10000 misses) > 0.03, i.e. at fp 310
    CuckooGuard<Long> guard = builder().fpp(0.01).fppDriftFactor(3).build();
    miss(guard, 10_000);
    for (int i = 0; i < 309; i++) {
      guard.reportFalsePositive(7L);
    }
    assertThat(executor.pending()).isZero();
    guard.reportFalsePositive(7L);
    assertThat(executor.pending()).isEqualTo(1);
    assertThat(guard.stats().observedFpp()).isEqualTo(310.0 / 10_310);

    executor.runAll();

    assertThat(listener.starts).singleElement().asString().startsWith("observed fpp");
    guard.reportFalsePositive(7L);
    assertThat(executor.pending()).as("drift is measured again from the swap on").isZero();
  }

  @Test
  void driftNeedsTenThousandNegativesFirst() {
    CuckooGuard<Long> guard = builder().fpp(0.01).build();
    miss(guard, 100);
    for (long fp = 1; fp < CuckooGuard.MIN_NEGATIVES_FOR_DRIFT - 100; fp++) {
      guard.reportFalsePositive(7L);
    }
    assertThat(guard.stats().observedFpp()).isGreaterThan(0.9);
    assertThat(executor.pending()).isZero();
    guard.reportFalsePositive(7L);
    assertThat(executor.pending()).isEqualTo(1);
  }

  @Test
  void infiniteDriftFactorTurnsTheTriggerOff() {
    CuckooGuard<Long> guard = builder().fppDriftFactor(Double.POSITIVE_INFINITY).build();
    miss(guard, 10_000);
    for (int i = 0; i < 10_000; i++) {
      guard.reportFalsePositive(7L);
    }
    assertThat(executor.pending()).isZero();
  }

  @Test
  void fingerprintBitsSetTheDriftTargetFromAFullFilter() {
    // 8-bit fingerprints, b = 4, load 0.95: target ~0.0296, limit (factor 2) ~0.059
    CuckooGuard<Long> guard = builder().fingerprintBits(8).fppDriftFactor(2).build();
    miss(guard, 10_000);
    for (int i = 0; i < 600; i++) { // 600 / 10600 = 0.0566: below
      guard.reportFalsePositive(7L);
    }
    assertThat(executor.pending()).isZero();
    for (int i = 0; i < 100; i++) { // 700 / 10700 = 0.0654: above
      guard.reportFalsePositive(7L);
    }
    assertThat(executor.pending()).isEqualTo(1);
  }
}
