package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardStats;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Key-level basics, argument checks, builder validation and counters. */
class CuckooGuardTest {

  private static CuckooGuard<Long> guard() {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .expectedInsertions(10_000)
        .fpp(0.001)
        .seed(42)
        .name("t")
        .build();
  }

  @Test
  void enteredKeysAreFoundAndLeftKeysAreNot() {
    CuckooGuard<Long> guard = guard();
    for (long k = 0; k < 5_000; k++) {
      guard.keyEntered(k);
    }
    for (long k = 0; k < 5_000; k++) {
      assertThat(guard.mightContain(k)).as("key %s", k).isTrue();
    }
    for (long k = 0; k < 5_000; k += 2) {
      guard.keyLeft(k);
    }
    for (long k = 1; k < 5_000; k += 2) {
      assertThat(guard.mightContain(k)).as("key %s", k).isTrue();
    }
    long stillAnswering = 0;
    for (long k = 0; k < 5_000; k += 2) {
      if (guard.mightContain(k)) {
        stillAnswering++;
      }
    }
    // Removed keys now behave like absent keys: fpp 0.001 over 2500 probes, at most 25 (10x) with
    // seed 42.
    assertThat(stillAnswering).isLessThanOrEqualTo(25);
    assertThat(guard.stats().size()).isEqualTo(2_500);
  }

  @Test
  void aKeyEnteredTwiceNeedsTwoLeaves() {
    // A guard is a multiset per key: adapters report a key once per entry; this pins the pairing.
    CuckooGuard<Long> guard = guard();
    guard.keyEntered(7L);
    guard.keyEntered(7L);
    guard.keyLeft(7L);
    assertThat(guard.mightContain(7L)).isTrue();
    assertThat(guard.stats().size()).isEqualTo(1);
  }

  @Test
  void nullArgumentsAreRejectedByName() {
    CuckooGuard<Long> guard = guard();
    assertThatThrownBy(() -> guard.mightContain(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> guard.keyEntered(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> guard.keyLeft(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> guard.reportFalsePositive(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> guard.markStale(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("reason");
    assertThatThrownBy(() -> CuckooGuard.newBuilder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("funnel");
    var b = CuckooGuard.newBuilder(Funnels.longFunnel());
    assertThatThrownBy(() -> b.keySource(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("keySource");
    assertThatThrownBy(() -> b.executor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("executor");
    assertThatThrownBy(() -> b.addListener(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("listener");
    assertThatThrownBy(() -> b.name(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
  }

  @Test
  void builderRejectsBadValuesNamingValueAndRange() {
    var b = CuckooGuard.newBuilder(Funnels.longFunnel());
    assertThatThrownBy(() -> b.rebuildLoadThreshold(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rebuildLoadThreshold (0.0)")
        .hasMessageContaining("(0, 1]");
    assertThatThrownBy(() -> b.rebuildLoadThreshold(1.5))
        .hasMessageContaining("rebuildLoadThreshold (1.5)");
    assertThatThrownBy(() -> b.rebuildLoadThreshold(Double.NaN))
        .hasMessageContaining("rebuildLoadThreshold (NaN)");
    assertThatThrownBy(() -> b.fppDriftFactor(1.0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fppDriftFactor (1.0) must be > 1");
    assertThatThrownBy(() -> b.fppDriftFactor(Double.NaN))
        .hasMessageContaining("fppDriftFactor (NaN)");
    assertThatThrownBy(() -> b.fpp(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fpp (0.0) must be in (0, 1)");
    assertThatThrownBy(() -> b.fpp(1.5)).hasMessageContaining("fpp (1.5)");
    assertThatThrownBy(() -> b.fingerprintBits(3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fingerprintBits (3) must be in [4, 16]");
    assertThatThrownBy(() -> b.expectedInsertions(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInsertions (0)");
    assertThatThrownBy(() -> b.expansion(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expansion (-1)");
    assertThatThrownBy(() -> b.name(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
  }

  @Test
  void builderSettingsCanBeSetOnlyOnce() {
    var b =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .fpp(0.01)
            .rebuildLoadThreshold(0.5)
            .fppDriftFactor(2)
            .name("x");
    assertThatThrownBy(() -> b.fpp(0.02))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fpp");
    assertThatThrownBy(() -> b.fingerprintBits(8))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fingerprintBits cannot be set together with fpp");
    assertThatThrownBy(() -> b.rebuildLoadThreshold(0.6))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("rebuildLoadThreshold was already set to 0.5");
    assertThatThrownBy(() -> b.fppDriftFactor(4))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("fppDriftFactor was already set to 2.0");
    assertThatThrownBy(() -> b.name("y"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("name was already set to x");
  }

  @Test
  void buildRejectsAnFppSixteenBitFingerprintsCannotReach() {
    assertThatThrownBy(() -> CuckooGuard.newBuilder(Funnels.longFunnel()).fpp(1e-6).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fpp (1.0E-6)");
  }

  @Test
  void statsCountLookupsMissesAndFalsePositives() {
    CuckooGuard<Long> guard = guard();
    for (long k = 0; k < 100; k++) {
      guard.keyEntered(k);
    }
    long misses = 0;
    for (long k = 0; k < 1_100; k++) {
      if (!guard.mightContain(k)) {
        misses++;
      }
    }
    guard.reportFalsePositive(5_000L);
    guard.reportFalsePositive(5_001L);
    GuardStats stats = guard.stats();
    assertThat(stats.lookups()).isEqualTo(1_100);
    assertThat(stats.definiteMisses()).isEqualTo(misses);
    // 1000 absent probes at fpp 0.001 (seed 42): at least 990 are definite misses.
    assertThat(misses).isBetween(990L, 1_000L);
    assertThat(stats.falsePositives()).isEqualTo(2);
    assertThat(stats.observedFpp()).isEqualTo(2.0 / (2 + misses));
    assertThat(stats.size()).isEqualTo(100);
    assertThat(stats.loadFactor()).isGreaterThan(0).isLessThan(0.05);
    assertThat(stats.sizeInBytes()).isGreaterThan(0);
    assertThat(stats.rebuilds()).isZero();
    assertThat(stats.lastRebuildDuration()).isEqualTo(Duration.ZERO);
    assertThat(stats.lastRebuildFailure()).isNull();
    assertThat(stats.passThrough()).isFalse();
    assertThat(stats.rebuilding()).isFalse();
    assertThat(guard.name()).isEqualTo("t");
  }

  @Test
  void observedFppIsNaNBeforeAnyNegative() {
    assertThat(guard().stats().observedFpp()).isNaN();
  }

  @Test
  void rebuildWithoutKeySourceFailsNamingWhatIsNeeded() {
    CuckooGuard<Long> guard = guard();
    assertThatThrownBy(() -> guard.rebuild().join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs a KeySource");
  }

  @Test
  void withoutKeySourceMarkStaleLeavesPassThroughOnForGood() {
    CuckooGuard<Long> guard = guard();
    assertThat(guard.mightContain(1L)).isFalse();
    guard.markStale("bulk delete");
    assertThat(guard.isPassThrough()).isTrue();
    assertThat(guard.mightContain(1L)).isTrue();
    assertThat(guard.stats().passThrough()).isTrue();
    // pass-through answers are not counted as false positives of the filter
    guard.reportFalsePositive(1L);
    assertThat(guard.stats().falsePositives()).isZero();
  }

  @Test
  void withoutKeySourceTheFilterGrowsInsteadOfFailing() {
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel()).expectedInsertions(100).build();
    for (long k = 0; k < 1_000; k++) {
      guard.keyEntered(k);
    }
    assertThat(guard.isPassThrough()).isFalse();
    for (long k = 0; k < 1_000; k++) {
      assertThat(guard.mightContain(k)).isTrue();
    }
  }
}
