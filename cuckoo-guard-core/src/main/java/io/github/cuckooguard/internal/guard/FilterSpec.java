package io.github.cuckooguard.internal.guard;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.internal.Sizing;
import org.jspecify.annotations.Nullable;

/**
 * How a guard builds its filters: the first one, and each rebuilt one at a new size.
 *
 * <p>A guard holding {@code expectedInsertions} keys must not be above its rebuild load threshold,
 * or the first filter would trigger a rebuild (a full scan of the source) as soon as the tracked
 * set reached its expected size. A filter built for {@code c} keys is full at the design load (0.95
 * for 4-slot buckets), so {@link #capacity} sizes for {@code keys × designLoad / threshold} (× 1.12
 * at the default threshold 0.85), never less than {@code keys}.
 *
 * @param expectedInsertions the configured number of tracked keys, the floor of every rebuilt
 *     filter
 * @param fpp the configured target fpp, or a negative value if not set
 * @param fingerprintBits the configured fingerprint width, or a negative value if not set
 * @param expansion the growth of the first filter
 * @param seed the hash seed of every filter, or null to draw a random one per filter
 * @param loadThreshold the load factor above which the guard rebuilds, in (0, 1]
 * @param semiSorted every filter stores its buckets semi-sorted
 */
public record FilterSpec(
    long expectedInsertions,
    double fpp,
    int fingerprintBits,
    int expansion,
    @Nullable Long seed,
    double loadThreshold,
    boolean semiSorted) {

  /** The least expansion of a rebuilt filter. */
  public static final int REBUILD_EXPANSION = 2;

  /**
   * How much larger than the tracked keys a guard's filter is sized so that they stay at or below
   * {@code loadThreshold}: designLoad / threshold (1.12 at the default 0.85), at least 1.
   */
  public static double headroom(double loadThreshold) {
    return Math.max(
        1.0, Sizing.designLoad(AbstractFilterBuilder.DEFAULT_BUCKET_SIZE) / loadThreshold);
  }

  /** The first filter: {@code expectedInsertions} keys fit below the load threshold. */
  public <K> CuckooFilter<K> initial(Funnel<? super K> funnel) {
    return build(funnel, capacity(expectedInsertions), expansion);
  }

  /** Capacity for which {@code keys} keys load a filter to at most the load threshold. */
  public long capacity(long keys) {
    return (long)
        Math.min(
            AbstractFilterBuilder.MAX_EXPECTED_INSERTIONS,
            Math.ceil(keys * headroom(loadThreshold)));
  }

  /**
   * A filter for a rebuild of a filter holding {@code currentSize} fingerprints: capacity
   * max({@link #capacity}(expectedInsertions), 2 × currentSize), the same accuracy, and expansion
   * of at least {@value #REBUILD_EXPANSION}, so that adds cannot fail while the scan runs even if
   * the source holds far more keys than the guard knew of (sub-filters double, so 32 of them hold
   * 2^32 times the first one; a grown filter triggers the next, right-sized rebuild).
   */
  public <K> CuckooFilter<K> rebuilt(Funnel<? super K> funnel, long currentSize) {
    long doubled =
        Math.min(AbstractFilterBuilder.MAX_EXPECTED_INSERTIONS, 2 * Math.max(0, currentSize));
    return build(
        funnel,
        Math.max(capacity(expectedInsertions), doubled),
        Math.max(REBUILD_EXPANSION, expansion));
  }

  private <K> CuckooFilter<K> build(Funnel<? super K> funnel, long expected, int growth) {
    CuckooFilter.Builder<K> b =
        CuckooFilter.<K>newBuilder(funnel).expectedInsertions(expected).expansion(growth);
    if (fpp > 0) {
      b.fpp(fpp);
    } else if (fingerprintBits > 0) {
      b.fingerprintBits(fingerprintBits);
    }
    if (seed != null) {
      b.seed(seed);
    }
    if (semiSorted) {
      b.semiSorted();
    }
    return b.build();
  }
}
