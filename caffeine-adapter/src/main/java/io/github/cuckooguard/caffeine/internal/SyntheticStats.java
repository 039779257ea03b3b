package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.stats.CacheStats;
import java.util.concurrent.atomic.LongAdder;

/**
 * What Caffeine's statistics recorded for the adapter's stand-in computes, to subtract from the
 * raw cache's statistics.
 *
 * <p>Why: a guarded {@code put} must run as {@code asMap().compute} (the only way to learn, inside
 * the per-key lock, whether the key was absent), and an invalidation as
 * {@code asMap().computeIfPresent}. With {@code recordStats()}, Caffeine counts each such compute
 * as a load (a removal as a failed one), and {@code computeIfAbsent} standing in for
 * {@code putIfAbsent} as a hit or a miss. Each stand-in function records here exactly what
 * Caffeine records around it, so {@code stats()} can report what plain Caffeine would have. Load
 * times are measured inside the function, a few nanoseconds less than Caffeine measures around
 * it, so {@code totalLoadTime} may keep a residue of nanoseconds per write.
 *
 * <p>Thread-safe; a no-op when the cache does not record statistics.
 */
public final class SyntheticStats {

  private final boolean enabled;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder loadSuccesses = new LongAdder();
  private final LongAdder loadFailures = new LongAdder();
  private final LongAdder loadNanos = new LongAdder();

  public SyntheticStats(boolean enabled) {
    this.enabled = enabled;
  }

  /** A start time for {@link #loaded}; call first thing inside the stand-in function. */
  public long start() {
    return enabled ? System.nanoTime() : 0L;
  }

  /** The stand-in function started at {@code start} returns: Caffeine records a load outcome. */
  public void loaded(long start, boolean success) {
    if (enabled) {
      loadNanos.add(System.nanoTime() - start);
      (success ? loadSuccesses : loadFailures).increment();
    }
  }

  /** A {@code computeIfAbsent} ran its function: Caffeine also records a miss. */
  public void missed() {
    if (enabled) {
      misses.increment();
    }
  }

  /** A {@code computeIfAbsent} found the key present: Caffeine records a hit. */
  public void hit() {
    if (enabled) {
      hits.increment();
    }
  }

  /** {@code raw} without what the stand-in computes added to it. */
  public CacheStats correct(CacheStats raw) {
    if (!enabled) {
      return raw;
    }
    return raw.minus(CacheStats.of(hits.sum(), misses.sum(), loadSuccesses.sum(), loadFailures.sum(),
        loadNanos.sum(), 0, 0));
  }
}
