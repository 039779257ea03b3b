package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A filter that grows far past its sized capacity keeps its false-positive rate within the target:
 * sized for 100,000 keys at {@code fpp(0.001)} (expansion 2, the default), filled with 30 times
 * that (3,000,000 keys), it must answer true for at most a 0.1 % share of keys never added, and for
 * every key added (measured 0.0984 %, 3,936 of 4·10^6, 5 sub-filters, 23.9 bits/item). With
 * expansion 1 the same check runs on a filter sized for 20,000 keys (29 sub-filters of that size,
 * measured 0.1002 %, 4,008, within the bound; 100,000 took 3 minutes on a loaded 2-core machine,
 * and measured 0.0985 %).
 *
 * <p>Bound: over {@code P} probes of keys never added the false positives are binomial(P, p) with p
 * the grown filter's rate; the test accepts at most {@code P·fpp + 4σ}, {@code σ = √(P·fpp·(1 −
 * fpp))} (P = 4,000,000: 4,000 + 253 false positives, a measured rate of at most 0.1063 %). A
 * filter whose rate is the target passes with probability above 1 − 3.2·10⁻⁵ (normal tail); the
 * seeds are fixed, so a run is deterministic. With every sub-filter at the first one's width (the
 * growth this replaces) the same filters measured 0.472 % (expansion 2, 14.1 bits/item) and 2.73 %
 * (expansion 1, 13.2 bits/item), and failed. Added keys are 0 .. 3,000,000 − 1, probes 2^40 + i:
 * none was added. A second, smaller check: {@code expectedFpp()}, the prediction from the fill,
 * stays below the target too.
 */
class GrowthFppTest {

  private static final double FPP = 0.001;
  private static final long GROWTH = 30;
  private static final long PROBES = 4_000_000;

  @ParameterizedTest(name = "expansion {0}, expectedInsertions {1}")
  @CsvSource({"2, 100000", "1, 20000"})
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void measuredFppAfterGrowingThirtyTimesPastExpectedInsertionsStaysWithinTheTarget(
      int expansion, long expected) {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(expected)
            .fpp(FPP)
            .expansion(expansion)
            .seed(16)
            .build();
    long keys = GROWTH * expected;
    for (long k = 0; k < keys; k++) {
      if (!filter.add(k)) {
        fail("add %s of %s failed: %s", k, keys, filter.info());
      }
    }
    long missed = 0;
    for (long k = 0; k < keys; k++) {
      if (!filter.mightContain(k)) {
        missed++;
      }
    }
    assertThat(missed).as("added keys reported absent").isZero();

    long falsePositives = 0;
    for (long i = 0; i < PROBES; i++) {
      if (filter.mightContain((1L << 40) + i)) {
        falsePositives++;
      }
    }
    double mean = PROBES * FPP;
    double bound = mean + 4 * Math.sqrt(mean * (1 - FPP));
    FilterInfo info = filter.info();
    String measured =
        String.format(
            "expansion %d: %d sub-filters, %.2f bits/item, measured fpp %.5f %% (%d of %d),"
                + " predicted %.5f %%",
            expansion,
            info.subFilters(),
            info.bitsPerItem(),
            100.0 * falsePositives / PROBES,
            falsePositives,
            PROBES,
            100 * filter.expectedFpp());
    System.out.println(measured);
    assertThat((double) falsePositives).as(measured).isLessThanOrEqualTo(bound);
    assertThat(filter.expectedFpp()).as(measured).isLessThanOrEqualTo(FPP);
  }
}
