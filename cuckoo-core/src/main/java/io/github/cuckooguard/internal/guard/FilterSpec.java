package io.github.cuckooguard.internal.guard;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.internal.Sizing;
import org.jspecify.annotations.Nullable;

/**
 * How a guard builds its filters: the first one, and each rebuilt one at a new size.
 *
 * @param expectedInsertions the configured capacity, the floor of every rebuilt filter
 * @param fpp the configured target fpp, or a negative value if not set
 * @param fingerprintBits the configured fingerprint width, or a negative value if not set
 * @param expansion the growth of the first filter
 * @param seed the hash seed of every filter, or null to draw a random one per filter
 */
public record FilterSpec(long expectedInsertions, double fpp, int fingerprintBits, int expansion, @Nullable Long seed) {

  /** The least expansion of a rebuilt filter. */
  public static final int REBUILD_EXPANSION = 2;

  /** The false-positive probability the filters aim at, against which drift is measured. */
  public double targetFpp() {
    if (fpp > 0) {
      return fpp;
    }
    if (fingerprintBits > 0) {
      return Sizing.fppAtDesignLoad(fingerprintBits, AbstractFilterBuilder.DEFAULT_BUCKET_SIZE);
    }
    return AbstractFilterBuilder.DEFAULT_FPP;
  }

  /** The first filter. */
  public <K> CuckooFilter<K> initial(Funnel<? super K> funnel) {
    return build(funnel, expectedInsertions, expansion);
  }

  /**
   * A filter for a rebuild of a filter holding {@code currentSize} fingerprints: capacity
   * max(expectedInsertions, 2 × currentSize), the same accuracy, and expansion of at least
   * {@value #REBUILD_EXPANSION}, so that adds cannot fail while the scan runs even if the source
   * holds far more keys than the guard knew of (sub-filters double, so 32 of them hold 2^32 times
   * the first one; a grown filter triggers the next, right-sized rebuild).
   */
  public <K> CuckooFilter<K> rebuilt(Funnel<? super K> funnel, long currentSize) {
    long doubled = Math.min(AbstractFilterBuilder.MAX_EXPECTED_INSERTIONS, 2 * Math.max(0, currentSize));
    return build(funnel, Math.max(expectedInsertions, doubled), Math.max(REBUILD_EXPANSION, expansion));
  }

  private <K> CuckooFilter<K> build(Funnel<? super K> funnel, long expected, int growth) {
    CuckooFilter.Builder<K> b = CuckooFilter.<K>newBuilder(funnel).expectedInsertions(expected).expansion(growth);
    if (fpp > 0) {
      b.fpp(fpp);
    } else if (fingerprintBits > 0) {
      b.fingerprintBits(fingerprintBits);
    }
    if (seed != null) {
      b.seed(seed);
    }
    return b.build();
  }
}
