package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The measured false-positive rate against the prediction, at the sized capacity.
 *
 * <p>Prediction: {@code p = 1 − (1 − 1/(2^f − 1))^(2·b·load)} with the load actually reached. Over
 * {@code P} probes of keys never added, the number of false positives is binomial(P, p) (the table
 * is fixed, the probes independent), so the test accepts {@code |measured − P·p| ≤ 5σ + 5 % of P·p}
 * with {@code σ = √(P·p·(1 − p))}: a deterministic run (fixed seeds) that a correct filter passes
 * with probability above 1 − 10⁻⁶, and that fails for a rate 2× off (asserted: the bound is below
 * {@code P·p}). Added keys are {@code (i + 1) · 0x9E3779B97F4A7C15} for {@code i < capacity},
 * probes continue the same sequence, so no probe was ever added.
 */
class FalsePositiveRateTest {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;
  private static final int CAPACITY = 1_000_000;
  private static final int PROBES = 2_000_000;

  /**
   * Measured (filter seed = f, load 0.9500): f = 8: 0.029364 against 0.029421 predicted (−0.5σ); f
   * = 12: 0.0018760 against 0.0018544 (+0.7σ); f = 16: 0.000130 against 0.000116 (+1.8σ, bound ±88
   * false positives around 232).
   */
  @ParameterizedTest(name = "f = {0}")
  @CsvSource({"8", "12", "16"})
  void measuredFalsePositiveRateMatchesThePredictionWithinFiveSigma(int f) {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(CAPACITY)
            .fingerprintBits(f)
            .expansion(0)
            .seed(f)
            .build();
    for (long i = 0; i < CAPACITY; i++) {
      if (!filter.add((i + 1) * GOLDEN)) {
        fail("add %s failed below the sized capacity", i);
      }
    }
    double load = filter.loadFactor();
    double p = 1 - Math.pow(1 - 1.0 / ((1 << f) - 1), 2 * 4 * load);
    assertThat(filter.expectedFpp()).isCloseTo(p, within(1e-12));
    assertThat(load).isBetween(0.94, 0.951);

    long falsePositives = 0;
    for (long i = CAPACITY; i < CAPACITY + PROBES; i++) {
      if (filter.mightContain((i + 1) * GOLDEN)) {
        falsePositives++;
      }
    }
    double expected = PROBES * p;
    double bound = 5 * Math.sqrt(PROBES * p * (1 - p)) + 0.05 * expected;
    assertThat(bound).as("the bound is tight enough to reject a rate 2x off").isLessThan(expected);
    assertThat((double) falsePositives)
        .as(
            "false positives among %s probes, fpp %s predicted %s",
            PROBES, (double) falsePositives / PROBES, p)
        .isCloseTo(expected, within(bound));
  }

  /**
   * Sized by fpp(0.001) (13-bit fingerprints at b = 4), filled to its capacity with string keys:
   * the measured rate is at most 0.0011. Measured 0.000936 (1,872 of 2,000,000, seed 99; the
   * prediction at the reached load is 0.000928).
   */
  @Test
  void filterSizedForAnFppStaysWithinTenPercentOfItAtCapacity() {
    int capacity = 500_000;
    CuckooFilter<CharSequence> filter =
        CuckooFilter.newBuilder(Funnels.stringFunnel())
            .expectedInsertions(capacity)
            .fpp(0.001)
            .seed(99)
            .build();
    for (int i = 0; i < capacity; i++) {
      if (!filter.add("key-" + i)) {
        fail("add %s failed below the sized capacity", i);
      }
    }
    assertThat(filter.info().subFilters()).as("capacity reached without growing").isEqualTo(1);
    long falsePositives = 0;
    for (int i = 0; i < PROBES; i++) {
      if (filter.mightContain("absent-" + i)) {
        falsePositives++;
      }
    }
    assertThat((double) falsePositives / PROBES).isLessThanOrEqualTo(0.001 * 1.1);
  }
}
