package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryRemovedListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rebuild that runs after the provider removed an entry and before the guarded cache's {@code
 * remove} returned: its scan no longer sees the key, and its filter is swapped in before the guard
 * hears that the key left. The leave was announced before the removal, so the guard held the key's
 * copy in the new filter and takes that one; a leave reported only after the removal would take
 * another key's copy from the new filter (the core's KeySource-leave window, issue 11). 4-bit
 * fingerprints and 2,000 keys make colliding keys common, so a wrong remove shows.
 */
class RemovalRebuildRaceTest {

  private final ExecutorService cacheThreads = Executors.newFixedThreadPool(4);
  private GuardedCachingProvider provider;

  @AfterEach
  void tearDown() {
    provider.close();
    cacheThreads.shutdownNow();
  }

  @Test
  void aRebuildBetweenARemovalAndItsLeaveTakesNoOtherKeysFingerprint() {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.expected-insertions", "4096");
    properties.setProperty("cuckooguard.fingerprint-bits", "4");
    properties.setProperty("cuckooguard.seed", "14");
    @SuppressWarnings("unchecked")
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>)
            provider
                .getCacheManager(
                    provider.getDefaultURI(), provider.getDefaultClassLoader(), properties)
                .createCache(
                    "race",
                    new CaffeineConfiguration<Long, String>()
                        .setTypes(Long.class, String.class)
                        .setExecutorFactory(() -> cacheThreads));
    Cache<Long, String> raw =
        provider.delegate().getCacheManager().getCache("race", Long.class, String.class);
    AtomicBoolean armed = new AtomicBoolean();
    CacheEntryRemovedListener<Long, String> rebuildOnRemoval =
        events -> {
          for (var event : events) {
            if (armed.getAndSet(false)) {
              while (raw.containsKey(event.getKey())) {
                Thread.onSpinWait(); // Caffeine may run the event before its removal is visible
              }
              cache.rebuild().join();
            }
          }
        };
    cache.registerCacheEntryListener(
        new MutableCacheEntryListenerConfiguration<>(
            () -> rebuildOnRemoval, null, false, true)); // synchronous: remove returns after it
    LongStream.range(0, 2_000).forEach(k -> cache.put(k, "v"));

    long rebuildsBefore = cache.stats().rebuilds();
    List<String> falseNegatives = new ArrayList<>();
    List<String> wrongSizes = new ArrayList<>();
    for (long k = 0; k < 100; k++) {
      armed.set(true);
      assertThat(cache.remove(k)).isTrue();
      // the next removal's rebuild would repair a wrong remove: check every present key now
      long removed = k;
      LongStream.range(k + 1, 2_000)
          .filter(present -> !cache.mightContain(present))
          .forEach(present -> falseNegatives.add(present + " after the removal of " + removed));
      if (cache.stats().size() != 1_999 - k) {
        wrongSizes.add(cache.stats().size() + " fingerprints for " + (1_999 - k) + " keys");
      }
    }

    assertThat(cache.stats().rebuilds())
        .as("a rebuild ran inside every removal")
        .isGreaterThanOrEqualTo(rebuildsBefore + 100);
    assertThat(falseNegatives).as("present keys reported absent").isEmpty();
    assertThat(wrongSizes)
        .as("exactly one fingerprint per present key after each removal")
        .isEmpty();
  }
}
