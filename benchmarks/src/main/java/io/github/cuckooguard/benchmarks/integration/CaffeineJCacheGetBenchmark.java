package io.github.cuckooguard.benchmarks.integration;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import io.github.cuckooguard.jcache.GuardSettings;
import io.github.cuckooguard.jcache.GuardedCache;
import io.github.cuckooguard.jcache.GuardedCachingProvider;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A JCache {@code get} on Caffeine's JCache provider (in-process, no network), through the
 * cuckoo-guard-jcache's {@link GuardedCachingProvider} ({@code guarded=true}) and on the provider
 * alone ({@code guarded=false}), in the same run: of a present and of an absent key. The cluster
 * variant is {@link JCacheClusterGetBenchmark}; this one shows the guard's own cost where a miss is
 * cheap. Run with {@code -prof gc}.
 *
 * <p>{@code Long} keys, {@code String} values, JCache defaults (store by value, which Caffeine's
 * provider implements by copying values); {@code entries} entries ({@link Fixtures#presentKey});
 * guard settings {@code cuckooguard.expected-entries = entries}, default fpp 0.01.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CaffeineJCacheGetBenchmark {

  private static final String CACHE = "benchmark";

  /** Whether the cache is opened through the guarded provider. */
  @Param({"true", "false"})
  public boolean guarded;

  /** Entries in the cache. */
  @Param({"100000"})
  public int entries;

  CachingProvider provider;
  Cache<Long, String> cache;
  Long[] present;
  Long[] absent;
  int cursor;

  /** Creates and fills the cache, waits for the guard and checks the probes; not timed. */
  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    CachingProvider caffeine = new CaffeineCachingProvider();
    Properties settings = new Properties();
    if (guarded) {
      settings.setProperty(
          GuardSettings.PREFIX + GuardSettings.EXPECTED_ENTRIES, String.valueOf(entries));
    }
    provider = guarded ? new GuardedCachingProvider(caffeine) : caffeine;
    CacheManager manager =
        provider.getCacheManager(
            provider.getDefaultURI(), provider.getDefaultClassLoader(), settings);
    cache =
        manager.createCache(
            CACHE, new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
    Map<Long, String> batch = new HashMap<>();
    for (int i = 0; i < entries; i++) {
      batch.put(Fixtures.presentKey(i), "value " + i);
      if (batch.size() == 1_000 || i == entries - 1) {
        cache.putAll(batch);
        batch.clear();
      }
    }
    if (cache instanceof GuardedCache<Long, String> guard) {
      long deadline = System.currentTimeMillis() + 60_000;
      while (guard.isPassThrough()) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              "the guard is still in pass-through after 60 s: " + guard.stats());
        }
        Thread.sleep(20);
      }
    }
    present = Fixtures.probes(entries, true, key -> true);
    absent = Fixtures.probes(entries, false, key -> true);
    for (int i = 0; i < Fixtures.PROBES; i++) {
      if (cache.get(present[i]) == null || cache.get(absent[i]) != null) {
        throw new IllegalStateException(
            "the cache does not hold exactly the keys written: " + present[i] + " or " + absent[i]);
      }
    }
  }

  /** Closes the provider. */
  @TearDown(Level.Trial)
  public void tearDown() {
    provider.close();
  }

  private int next() {
    return cursor = (cursor + 1) & (Fixtures.PROBES - 1);
  }

  /** {@code get} of a key in the cache. */
  @Benchmark
  public String getPresent() {
    return cache.get(present[next()]);
  }

  /** {@code get} of a key never written. */
  @Benchmark
  public String getAbsent() {
    return cache.get(absent[next()]);
  }
}
