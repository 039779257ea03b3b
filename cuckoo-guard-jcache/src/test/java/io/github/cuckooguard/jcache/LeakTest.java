package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.Configuration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.spi.CachingProvider;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.ExpiryPolicyBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.jsr107.Eh107Configuration;
import org.ehcache.jsr107.EhcacheCachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leak of each provider, measured: {@value #PUTS} distinct keys put into a cache bounded to
 * {@value #BOUND} entries with a TTL of {@value #TTL_MILLIS} ms, then (1) right after the puts:
 * fingerprints against entries (size eviction), (2) once every entry expired and a {@code get} of
 * every key removed it: fingerprints left (expiry). The guards are sized for 20,000 keys so that no
 * rebuild clears a leak meanwhile: what stays is what the pairing leaves. Printed for the README;
 * asserted where removals are followed (leak at most 2 %), and the unfollowed paths' leak is pinned
 * as what it is (every evicted or expired key's fingerprint stays until a rebuild).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeakTest {

  static final int PUTS = 5_000;
  static final int BOUND = 1_000;
  static final long TTL_MILLIS = 1_500;

  /** What a measurement found. */
  record Leak(String provider, long entries, long fingerprints, long leftAfterExpiry) {
    double evictionLeak() {
      return (double) (fingerprints - entries) / entries;
    }

    @Override
    public String toString() {
      return String.format(
          "%s: after %d puts into %d: %d entries, %d fingerprints, leak %.4f;"
              + " all expired: %d fingerprints left (for 0 entries)",
          provider, PUTS, BOUND, entries, fingerprints, evictionLeak(), leftAfterExpiry);
    }
  }

  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private static Properties guardSettings() {
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.expected-insertions", "20000");
    return properties;
  }

  @SuppressWarnings("unchecked")
  private GuardedCache<Long, String> created(
      CachingProvider delegate, String name, Configuration<Long, String> config) {
    GuardedCachingProvider provider = new GuardedCachingProvider(delegate);
    resources.add(provider::close);
    CacheManager manager =
        provider.getCacheManager(delegate.getDefaultURI(), null, guardSettings());
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>) manager.createCache(name, config);
    await("the first read", () -> !cache.isPassThrough());
    return cache;
  }

  /** An existing cache wrapped: Created events only (removals through the wrapper aside). */
  private GuardedCache<Long, String> wrapped(
      CachingProvider delegate, String name, Configuration<Long, String> config) {
    resources.add(delegate::close);
    Cache<Long, String> raw = delegate.getCacheManager().createCache(name, config);
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(raw).expectedInsertions(20_000).build();
    await("the initial scan", () -> !cache.isPassThrough());
    return cache;
  }

  /**
   * Entries held: for Caffeine its map after maintenance (expired entries not yet evicted count).
   */
  @SuppressWarnings("unchecked")
  private static long caffeineEntries(GuardedCache<Long, String> cache) {
    com.github.benmanes.caffeine.cache.Cache<Long, ?> caffeine =
        cache.unwrap(com.github.benmanes.caffeine.cache.Cache.class);
    caffeine.cleanUp();
    return caffeine.estimatedSize();
  }

  private static Leak measure(String provider, GuardedCache<Long, String> cache)
      throws InterruptedException {
    return measure(provider, cache, null);
  }

  /**
   * @param entries counts the entries the cache holds, or null to count the keys {@code
   *     containsKey} reports (Ehcache and Hazelcast remove an expired entry there, with its event)
   */
  private static Leak measure(
      String provider,
      GuardedCache<Long, String> cache,
      java.util.function.@org.jspecify.annotations.Nullable ToLongFunction<
              GuardedCache<Long, String>>
          entries)
      throws InterruptedException {
    Cache<Long, String> raw = cache.delegate();
    for (long k = 0; k < PUTS; k++) {
      cache.put(k, "v" + k);
    }
    long present = 0;
    long falseNegatives = 0;
    for (long k = 0; k < PUTS; k++) {
      boolean maybe = cache.mightContain(k);
      if (raw.containsKey(k)) {
        present++;
        if (!maybe) {
          falseNegatives++;
        }
      }
    }
    long held = entries != null ? entries.applyAsLong(cache) : present;
    long fingerprints = cache.stats().size();
    Thread.sleep(TTL_MILLIS + 100);
    for (long k = 0; k < PUTS; k++) {
      // a get removes an expired entry on every provider (Caffeine's containsKey only hides it)
      assertThat(raw.get(k)).as("expired").isNull();
    }
    Leak leak = new Leak(provider, held, fingerprints, cache.stats().size());
    System.out.println(leak);
    assertThat(falseNegatives).isZero();
    return leak;
  }

  private static Leak bounded(Leak leak) {
    assertThat(leak.entries())
        .as("the bound held the cache near its size")
        .isBetween(BOUND / 2L, (long) BOUND);
    return leak;
  }

  private static CaffeineConfiguration<Long, String> caffeine() {
    return new CaffeineConfiguration<Long, String>()
        .setTypes(Long.class, String.class)
        .setExecutorFactory(() -> Runnable::run)
        .setMaximumSize(OptionalLong.of(BOUND))
        .setExpiryPolicyFactory(
            CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, TTL_MILLIS)));
  }

  private static Configuration<Long, String> ehcache() {
    return Eh107Configuration.fromEhcacheCacheConfiguration(
        CacheConfigurationBuilder.newCacheConfigurationBuilder(
                Long.class, String.class, ResourcePoolsBuilder.heap(BOUND))
            .withExpiry(
                ExpiryPolicyBuilder.timeToLiveExpiration(java.time.Duration.ofMillis(TTL_MILLIS))));
  }

  @Test
  void caffeineFollowedLeaksNothingAndWrappedKeepsEveryRemovedKey() throws Exception {
    Leak followed =
        bounded(
            measure(
                "Caffeine 3.2.4, created by the guarded manager",
                created(new CaffeineCachingProvider(), "followed", caffeine()),
                LeakTest::caffeineEntries));
    Leak today =
        bounded(
            measure(
                "Caffeine 3.2.4, existing cache wrapped (Created events only)",
                wrapped(new CaffeineCachingProvider(), "wrapped", caffeine()),
                LeakTest::caffeineEntries));

    assertThat(followed.evictionLeak()).isLessThanOrEqualTo(0.02);
    assertThat(followed.leftAfterExpiry()).isLessThanOrEqualTo(BOUND / 50);
    assertThat(today.fingerprints()).as("every put's fingerprint stays").isEqualTo(PUTS);
    assertThat(today.leftAfterExpiry()).isEqualTo(PUTS);
  }

  @Test
  void ehcacheFollowedLeaksNothingAndWrappedKeepsEveryRemovedKey() throws Exception {
    Leak followed =
        bounded(
            measure(
                "Ehcache 3.12.0 heap, created by the guarded manager",
                created(new EhcacheCachingProvider(), "followed", ehcache())));
    Leak today =
        bounded(
            measure(
                "Ehcache 3.12.0 heap, existing cache wrapped (Created events only)",
                wrapped(new EhcacheCachingProvider(), "wrapped", ehcache())));

    assertThat(followed.evictionLeak()).isLessThanOrEqualTo(0.02);
    assertThat(followed.leftAfterExpiry()).isLessThanOrEqualTo(BOUND / 50);
    assertThat(today.fingerprints())
        .as("every put's fingerprint stays")
        .isGreaterThanOrEqualTo(PUTS);
    assertThat(today.leftAfterExpiry()).isGreaterThanOrEqualTo(PUTS);
  }

  /**
   * A standalone member on 127.0.0.1:5900+ (no join) and a guarded manager on it; the cache's guard
   * is in a guard group of one member. Expiry and eviction are not paired on Hazelcast: right after
   * the puts every evicted key's fingerprint is still there, and the guard's compaction (a rebuild
   * once the fingerprints exceed the entries by more than 2 %) drops them within a few seconds. The
   * steady state is measured once the compaction ran: after the puts, and once every entry expired
   * and a {@code get} of every key removed it.
   */
  @Test
  @SuppressWarnings("unchecked")
  void hazelcastEvictionAndExpiryLeaveByCompaction() throws Exception {
    com.hazelcast.config.Config config =
        new com.hazelcast.config.Config()
            .setClusterName("cuckoo-guard-leak-" + java.util.UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    com.hazelcast.config.NetworkConfig network =
        config.getNetworkConfig().setPort(5900).setPortAutoIncrement(true).setPortCount(49);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    network.getJoin().getMulticastConfig().setEnabled(false);
    network.getJoin().getAutoDetectionConfig().setEnabled(false);
    network.getJoin().getTcpIpConfig().setEnabled(false);
    com.hazelcast.core.HazelcastInstance member =
        com.hazelcast.core.Hazelcast.newHazelcastInstance(config);
    resources.add(() -> member.getLifecycleService().terminate());
    com.hazelcast.cache.HazelcastMemberCachingProvider delegate =
        new com.hazelcast.cache.HazelcastMemberCachingProvider();
    GuardedCachingProvider provider = new GuardedCachingProvider(delegate);
    resources.add(provider::close);
    Properties properties =
        com.hazelcast.cache.HazelcastCachingProvider.propertiesByInstanceItself(member);
    properties.putAll(guardSettings());
    CacheManager manager = provider.getCacheManager(delegate.getDefaultURI(), null, properties);
    com.hazelcast.config.CacheConfig<Long, String> cacheConfig =
        new com.hazelcast.config.CacheConfig<Long, String>();
    cacheConfig.setTypes(Long.class, String.class);
    cacheConfig.setExpiryPolicyFactory(
        CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, TTL_MILLIS)));
    cacheConfig.setEvictionConfig(
        new com.hazelcast.config.EvictionConfig()
            .setSize(BOUND)
            .setMaxSizePolicy(com.hazelcast.config.MaxSizePolicy.ENTRY_COUNT)
            .setEvictionPolicy(com.hazelcast.config.EvictionPolicy.LRU));
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>) manager.createCache("leak", cacheConfig);
    await("the first read", () -> !cache.isPassThrough());
    // Hazelcast's ENTRY_COUNT bound is enforced per partition (approximate): not asserted
    Cache<Long, String> raw = cache.delegate();
    for (long k = 0; k < PUTS; k++) {
      cache.put(k, "v" + k);
    }
    long fingerprintsRightAfter = cache.stats().size();
    long present = LongStream.range(0, PUTS).filter(raw::containsKey).count();
    await(
        "the compaction after the evictions",
        () -> cache.stats().size() <= present + Math.max(16, present / 50));
    long falseNegatives =
        LongStream.range(0, PUTS).filter(k -> raw.containsKey(k) && !cache.mightContain(k)).count();
    long steady = cache.stats().size();
    long rebuilds = cache.stats().rebuilds();
    Thread.sleep(TTL_MILLIS + 100);
    for (long k = 0; k < PUTS; k++) {
      assertThat(raw.get(k)).as("expired").isNull();
    }
    long leftRightAfterExpiry = cache.stats().size();
    await("the compaction after the expiries", () -> cache.stats().size() <= 16);
    Leak leak =
        new Leak("Hazelcast 5.7.0 member, steady state", present, steady, cache.stats().size());
    System.out.println(leak);
    System.out.printf(
        "Hazelcast 5.7.0 member, right after the puts: %d entries, %d fingerprints (leak %.4f);"
            + " right after all expired: %d fingerprints left; %d rebuilds%n",
        present,
        fingerprintsRightAfter,
        (double) (fingerprintsRightAfter - present) / present,
        leftRightAfterExpiry,
        cache.stats().rebuilds() - rebuilds + 1);

    assertThat(falseNegatives).isZero();
    assertThat(fingerprintsRightAfter)
        .as("eviction is not paired: right after the puts every fingerprint is there")
        .isEqualTo(PUTS);
    assertThat(leak.evictionLeak()).isLessThanOrEqualTo(0.02);
    assertThat(leak.leftAfterExpiry()).isLessThanOrEqualTo(16);
  }
}
