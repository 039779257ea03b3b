package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fingerprint widths growth gives its sub-filters ({@link Sizing#growthBits}) and what they
 * guarantee: the union bound on a grown filter's fpp, the full first sub-filter plus every
 * sub-filter growth can add, stays within the target whenever the full first one leaves 1/64 of it,
 * and within the full first one's plus 1/64 of the target always.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GrowthWidthsTest {

  @ParameterizedTest(name = "fpp {0}, b = {1}")
  @CsvSource({"0.001, 4, 13, 20", "0.01, 4, 10, 13", "0.03, 4, 8, 16", "0.001, 2, 12, 19"})
  void documentedWidths(double fpp, int b, int first, int growth) {
    assertThat(Sizing.fingerprintBits(fpp, b)).isEqualTo(first);
    assertThat(Sizing.growthBits(fpp, first, b)).isEqualTo(growth);
  }

  @Test
  void theGrownFppBoundStaysWithinTheTargetForEveryTargetAndBucketSize() {
    for (int b : new int[] {2, 4, 8}) {
      for (double fpp = Sizing.minFpp(b); fpp < 0.5; fpp *= 1.01) {
        int f = Sizing.fingerprintBits(fpp, b);
        int g = Sizing.growthBits(fpp, f, b);
        assertThat(g).isGreaterThan(f).isLessThanOrEqualTo(Sizing.MAX_BITS);
        double first = Sizing.fppBound(f, b);
        double total = first + Sizing.grownFppBound(g, b);
        if (first <= fpp * (1 - 1.0 / Sizing.GROWTH_SHARE_FLOOR)) {
          assertThat(total).as("fpp %s, b %s: f %s, g %s", fpp, b, f, g).isLessThanOrEqualTo(fpp);
        } else {
          assertThat(total)
              .as("fpp %s, b %s: f %s, g %s", fpp, b, f, g)
              .isLessThanOrEqualTo(first + fpp / Sizing.GROWTH_SHARE_FLOOR);
        }
        // The least width that fits: one bit fewer would exceed the budget.
        double budget = Math.max(fpp - first, fpp / Sizing.GROWTH_SHARE_FLOOR);
        if (g > f + 1) {
          assertThat(Sizing.grownFppBound(g - 1, b)).isGreaterThan(budget);
        }
      }
    }
  }

  @Test
  void aGrownCoreWidensEachNewSubFilterByOneBitUpTo32() {
    FilterCore core = new FilterCore(13, 4, 4, 100, 1, 20, 7, Long.MAX_VALUE);
    for (long i = 0; core.subFilters() < FilterCore.MAX_SUB_FILTERS; i++) {
      assertThat(core.add(i * 0x9E3779B97F4A7C15L)).isTrue();
    }
    int[] bits = core.tableBits();
    assertThat(bits[0]).isEqualTo(13);
    for (int t = 1; t < bits.length; t++) {
      assertThat(bits[t]).as("sub-filter %s", t).isEqualTo(Math.min(32, 20 + t - 1));
    }
    assertThat(core.expectedFpp()).isLessThan(Sizing.fppBound(13, 4) + Sizing.grownFppBound(20, 4));
  }
}
