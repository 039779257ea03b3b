package io.github.cuckooguard.jcache;

import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The core's contract on Caffeine's real JCache provider, through the guarded provider and cache:
 * insert is {@code put}, remove is {@code remove} (a followed removal on this provider), the key
 * source is the guarded cache's scan, and the guard's settings travel as {@link GuardSettings}
 * properties of the cache manager, as a user would set them.
 */
class CaffeineJCacheGuardContractTest extends GuardedSourceContract {

  /** The guard settings of {@code spec} as cache manager properties. */
  static Properties properties(GuardSpec spec) {
    Properties properties = new Properties();
    properties.setProperty(
        GuardSettings.PREFIX + GuardSettings.EXPECTED_INSERTIONS,
        String.valueOf(spec.expectedInsertions()));
    if (spec.fingerprintBits() > 0) {
      properties.setProperty(
          GuardSettings.PREFIX + "fingerprint-bits", String.valueOf(spec.fingerprintBits()));
    }
    if (spec.fpp() > 0) {
      properties.setProperty(GuardSettings.PREFIX + GuardSettings.FPP, String.valueOf(spec.fpp()));
    }
    if (spec.seed() != null) {
      properties.setProperty(GuardSettings.PREFIX + "seed", String.valueOf(spec.seed()));
    }
    return properties;
  }

  @Override
  protected Subject newSubject(GuardSpec spec) {
    // Caffeine runs synchronous listeners on its executor; the common pool (one thread on two
    // cores) is also where the guard rebuilds, so the cache gets threads of its own
    ExecutorService cacheThreads = Executors.newFixedThreadPool(4);
    GuardedCachingProvider provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    GuardedCacheManager manager =
        provider.getCacheManager(
            provider.getDefaultURI(), provider.getDefaultClassLoader(), properties(spec));
    @SuppressWarnings("unchecked")
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>)
            manager.createCache(
                "contract",
                new CaffeineConfiguration<Long, String>()
                    .setTypes(Long.class, String.class)
                    .setExecutorFactory(() -> cacheThreads));
    return new Subject() {
      @Override
      public void insert(long key) {
        cache.put(key, "v");
      }

      @Override
      public void remove(long key) {
        cache.remove(key);
      }

      @Override
      public boolean mightContain(long key) {
        return cache.mightContain(key);
      }

      @Override
      public CompletableFuture<?> rebuild() {
        return cache.rebuild();
      }

      @Override
      public long fingerprints() {
        return cache.stats().size();
      }

      @Override
      public boolean isPassThrough() {
        return cache.isPassThrough();
      }

      @Override
      public void close() throws InterruptedException {
        provider.close();
        cacheThreads.shutdown();
        cacheThreads.awaitTermination(10, TimeUnit.SECONDS);
      }
    };
  }
}
