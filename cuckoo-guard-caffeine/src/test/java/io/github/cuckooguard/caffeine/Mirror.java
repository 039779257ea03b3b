package io.github.cuckooguard.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import java.util.ArrayList;
import java.util.List;

/** Checks that a guard mirrors its cache. */
final class Mirror {
  private Mirror() {}

  /** Keys of the cache that the guard answers "definitely absent" for: must always be empty. */
  static <K> List<K> falseNegatives(Cache<K, ?> cache, CaffeineGuard<K, ?> guard) {
    List<K> missing = new ArrayList<>();
    for (K key : cache.asMap().keySet()) {
      if (!guard.mightContain(key)) {
        missing.add(key);
      }
    }
    return missing;
  }

  /** Waits until no rebuild runs or is queued. */
  static void awaitRebuilds(CaffeineGuard<?, ?> guard) {
    while (guard.stats().rebuilding()) {
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  /**
   * After cleanUp: no false negatives, no write left in flight, and exactly one fingerprint per
   * entry the cache holds. Holds at rest unless a rebuild ran concurrently with evictions (those
   * may leak, see the README).
   */
  static <K> void assertExact(Cache<K, ?> cache, CaffeineGuard<K, ?> guard) {
    awaitRebuilds(guard);
    cache.cleanUp();
    assertThat(falseNegatives(cache, guard)).isEmpty();
    assertThat(guard.writesInFlight()).as("enters and leaves not ended").isZero();
    assertThat(guard.stats().size()).as("fingerprints vs entries").isEqualTo(cache.estimatedSize());
  }
}
