package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static io.github.cuckooguard.jcache.TestSupport.calls;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Which calls the guard answers, and the cases where it must not, on Caffeine's JCache provider.
 */
class ShortCircuitTest {

  private static final long PRESENT = 200;

  private GuardedCachingProvider provider;
  private GuardedCacheManager manager;
  private String name;

  @BeforeEach
  void setUp(TestInfo test) {
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    manager = provider.getCacheManager();
    name = getClass().getSimpleName() + "-" + test.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() {
    provider.close();
  }

  private static MutableConfiguration<Long, String> config() {
    return new MutableConfiguration<Long, String>().setTypes(Long.class, String.class);
  }

  /** Keys that were never written and that the guard reports definitely absent. */
  private static List<Long> definiteMisses(GuardedCache<Long, String> cache) {
    return LongStream.range(1_000_000, 1_002_000)
        .boxed()
        .filter(k -> !cache.mightContain(k))
        .toList();
  }

  @Test
  void definiteMissesNeverReachTheProvider() {
    Map<String, AtomicInteger> log = TestSupport.newCallLog();
    Cache<Long, String> raw = provider.delegate().getCacheManager().createCache(name, config());
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(TestSupport.recording(raw, log)).build();
    await("the initial scan finished", () -> !cache.isPassThrough());
    for (long k = 0; k < PRESENT; k++) {
      cache.put(k, "v" + k);
    }
    List<Long> misses = definiteMisses(cache);
    // 200 keys in a filter sized for 10,000 at fpp 0.01: false positives are rare; 1,900 of
    // 2,000 is a bound a correct filter fails with negligible probability (seeded per filter)
    assertThat(misses).hasSizeGreaterThan(1_900);
    log.clear();

    for (Long k : misses) {
      assertThat(cache.get(k)).isNull();
      assertThat(cache.containsKey(k)).isFalse();
      assertThat(cache.remove(k)).isFalse();
      assertThat(cache.remove(k, "x")).isFalse();
      assertThat(cache.getAndRemove(k)).isNull();
      assertThat(cache.replace(k, "x")).isFalse();
      assertThat(cache.replace(k, "x", "y")).isFalse();
      assertThat(cache.getAndReplace(k, "x")).isNull();
      assertThat(cache.<Boolean>invoke(k, (entry, args) -> entry.exists())).isFalse();
    }
    Set<Long> missSet = new HashSet<>(misses);
    assertThat(cache.getAll(missSet)).isEmpty();
    cache.removeAll(missSet);
    assertThat(cache.invokeAll(missSet, (entry, args) -> entry.getValue())).isEmpty();
    log.remove(
        "isClosed"); // a local state check in every provider, made to throw IllegalStateException
    // a local read of the cache's settings: whether statistics were switched on behind the
    // wrapper's back (then the call goes to the provider, whose statistics must count it)
    log.remove("getConfiguration");
    assertThat(log).as("calls that reached the provider").isEmpty();

    for (long k = 0; k < PRESENT; k++) {
      assertThat(cache.get(k)).isEqualTo("v" + k);
    }
    assertThat(calls(log, "get")).isEqualTo(PRESENT);
    assertThat(cache.stats().definiteMisses()).isGreaterThanOrEqualTo(9L * misses.size());
  }

  @Test
  void getAllAndRemoveAllAskTheProviderOnlyForKeysThatMightBePresent() {
    Map<String, AtomicInteger> log = TestSupport.newCallLog();
    Cache<Long, String> raw = provider.delegate().getCacheManager().createCache(name, config());
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(TestSupport.recording(raw, log)).build();
    await("the initial scan finished", () -> !cache.isPassThrough());
    cache.putAll(Map.of(1L, "a", 2L, "b", 3L, "c"));
    Set<Long> keys = new HashSet<>(definiteMisses(cache));
    keys.addAll(Set.of(1L, 2L, 3L));
    log.clear();

    assertThat(cache.getAll(keys)).isEqualTo(Map.of(1L, "a", 2L, "b", 3L, "c"));
    cache.removeAll(keys);
    assertThat(calls(log, "getAll")).isOne();
    // Caffeine's provider, wrapped: the guarded cache follows its own removals, so removeAll runs
    // as one removal per key that might be present, each ended by its own result
    assertThat(calls(log, "removeAll")).isZero();
    assertThat(calls(log, "remove")).isEqualTo(3);
    assertThat(cache.stats().size()).as("the removed keys' fingerprints left").isZero();
    assertThat(raw.iterator().hasNext()).isFalse();
  }

  @Test
  void invokeOnAnAbsentKeyRunsLocallyAndCreatesThroughTheProviderWhenItWrites() {
    Map<String, AtomicInteger> log = TestSupport.newCallLog();
    Cache<Long, String> raw = provider.delegate().getCacheManager().createCache(name, config());
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(TestSupport.recording(raw, log)).build();
    await("the initial scan finished", () -> !cache.isPassThrough());
    long key = definiteMisses(cache).get(0);
    log.clear();

    String result =
        cache.invoke(
            key,
            (entry, args) -> {
              entry.setValue("created by " + args[0]);
              return "wrote " + entry.getValue();
            },
            "processor");

    assertThat(result).isEqualTo("wrote created by processor");
    assertThat(raw.get(key)).isEqualTo("created by processor");
    assertThat(calls(log, "invoke")).isZero();
    assertThat(calls(log, "putIfAbsent")).isOne();
    assertThat(cache.mightContain(key)).isTrue();
  }

  @Test
  void withStatisticsOnSkippedGetsAreCountedAsMissesInTheProvidersStatistics() throws Exception {
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>) manager.createCache(name, config().setStatisticsEnabled(true));
    cache.put(1L, "one");
    long before = cache.stats().definiteMisses();

    for (long k = 1_000; k < 1_100; k++) {
      assertThat(cache.get(k)).isNull();
    }
    Set<Long> absent = LongStream.range(2_000, 2_050).boxed().collect(Collectors.toSet());
    assertThat(cache.getAll(absent)).isEmpty();
    assertThat(cache.get(1L)).isEqualTo("one");

    assertThat(cache.stats().definiteMisses() - before)
        .as("lookups the guard answered")
        .isGreaterThan(135);
    assertThat(statistic(name, "CacheMisses"))
        .as("the provider's misses, skipped ones included")
        .isEqualTo(150L);
    assertThat(statistic(name, "CacheHits")).isEqualTo(1L);
    assertThat(statistic(name, "CacheGets")).isEqualTo(151L);

    manager.enableStatistics(name, false);
    cache.get(1_000L);
    manager.enableStatistics(name, true);
    assertThat(statistic(name, "CacheMisses"))
        .as("not counted while statistics are off")
        .isEqualTo(150L);
  }

  @Test
  void withStatisticsOnAProviderWhoseMissesCannotBeCountedEveryGetReachesIt() throws Exception {
    org.ehcache.jsr107.EhcacheCachingProvider ehcache =
        new org.ehcache.jsr107.EhcacheCachingProvider();
    GuardedCachingProvider guarded = new GuardedCachingProvider(ehcache);
    try {
      GuardedCache<Long, String> cache =
          (GuardedCache<Long, String>)
              guarded.getCacheManager().createCache(name, config().setStatisticsEnabled(true));
      cache.put(1L, "one");
      long before = cache.stats().lookups();
      for (long k = 1_000; k < 1_100; k++) {
        assertThat(cache.get(k)).isNull();
      }
      assertThat(cache.stats().lookups()).as("guard not consulted for gets").isEqualTo(before);
      assertThat(statistic(name, "CacheMisses")).isEqualTo(100L);
      assertThat(cache.containsKey(1_000L))
          .isFalse(); // containsKey counts nothing: answered by the guard
      assertThat(cache.stats().lookups()).isEqualTo(before + 1);
    } finally {
      guarded.close();
      ehcache.close();
    }
  }

  @Test
  void statisticsSwitchedOnBehindTheWrappersBackStillReachTheProvider() throws Exception {
    org.ehcache.jsr107.EhcacheCachingProvider ehcache =
        new org.ehcache.jsr107.EhcacheCachingProvider();
    GuardedCachingProvider guarded = new GuardedCachingProvider(ehcache);
    try {
      Cache<Long, String> cache = guarded.getCacheManager().createCache(name, config());
      cache.put(1L, "one");
      // the delegate's own manager: the wrapper is not told
      ehcache.getCacheManager().enableStatistics(name, true);
      assertThat(cache.replace(1_000L, "old", "new")).isFalse();
      assertThat(cache.replace(1_001L, "new")).isFalse();
      assertThat(cache.getAndReplace(1_002L, "new")).isNull();
      assertThat(statistic(name, "CacheMisses"))
          .as("each replace of an absent key reached the provider and was counted there")
          .isEqualTo(3L);
    } finally {
      guarded.close();
      ehcache.close();
    }
  }

  private static long statistic(String cacheName, String attribute) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names =
        server.queryNames(new ObjectName("javax.cache:type=CacheStatistics,*"), null).stream()
            .filter(n -> cacheName.equals(n.getKeyProperty("Cache")))
            .collect(Collectors.toSet());
    assertThat(names).hasSize(1);
    return (Long) server.getAttribute(names.iterator().next(), attribute);
  }

  @Test
  void readThroughMissesReachTheLoader() {
    Map<Long, Integer> loads = new ConcurrentHashMap<>();
    CacheLoader<Long, String> loader =
        new CacheLoader<>() {
          @Override
          public String load(Long key) {
            loads.merge(key, 1, Integer::sum);
            return "loaded " + key;
          }

          @Override
          public Map<Long, String> loadAll(Iterable<? extends Long> keys) {
            Map<Long, String> all = new java.util.HashMap<>();
            keys.forEach(k -> all.put(k, load(k)));
            return all;
          }
        };
    Cache<Long, String> cache =
        manager.createCache(
            name, config().setReadThrough(true).setCacheLoaderFactory(() -> loader));

    assertThat(cache.get(7L)).isEqualTo("loaded 7");
    assertThat(cache.getAll(Set.of(8L, 9L))).containsOnlyKeys(8L, 9L);
    assertThat(loads).containsOnlyKeys(7L, 8L, 9L);
    assertThat(cache.containsKey(7L)).isTrue();
    assertThat(((GuardedCache<Long, String>) cache).mightContain(9L)).isTrue();
  }

  @Test
  void writeThroughRemovalOfAnAbsentKeyReachesTheWriter() {
    List<Object> deleted = new ArrayList<>();
    CacheWriter<Long, String> writer =
        new CacheWriter<>() {
          @Override
          public void write(Cache.Entry<? extends Long, ? extends String> entry) {}

          @Override
          public void writeAll(
              java.util.Collection<Cache.Entry<? extends Long, ? extends String>> entries) {
            entries.clear();
          }

          @Override
          public void delete(Object key) {
            deleted.add(key);
          }

          @Override
          public void deleteAll(java.util.Collection<?> keys) {
            deleted.addAll(keys);
            keys.clear();
          }
        };
    Cache<Long, String> cache =
        manager.createCache(
            name, config().setWriteThrough(true).setCacheWriterFactory(() -> writer));

    assertThat(cache.remove(5L)).isFalse();
    assertThat(cache.getAndRemove(6L)).isNull();
    cache.removeAll(Set.of(7L));

    assertThat(deleted).containsExactly(5L, 6L, 7L);
  }

  @Test
  void everyRemovalLeavesTheGuardAndClearRebuilds() {
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>) manager.createCache(name, config());
    for (long k = 0; k < PRESENT; k++) {
      cache.put(k, "v");
    }
    for (long k = 0; k < PRESENT / 4; k++) {
      assertThat(cache.remove(k)).isTrue();
    }
    assertThat(cache.stats().size())
        .as("remove(key) takes the key's fingerprint")
        .isEqualTo(PRESENT * 3 / 4);
    cache.removeAll(LongStream.range(PRESENT / 4, PRESENT / 2).boxed().collect(Collectors.toSet()));
    assertThat(cache.stats().size())
        .as("removeAll(keys) takes its keys' fingerprints (Caffeine, in its compute)")
        .isEqualTo(PRESENT / 2);
    cache.invoke(
        PRESENT / 2,
        (entry, args) -> {
          entry.remove();
          return null;
        });
    assertThat(cache.stats().size())
        .as("invoke that removes takes the key's fingerprint")
        .isEqualTo(PRESENT / 2 - 1);
    assertThat(LongStream.range(PRESENT / 2 + 1, PRESENT).allMatch(cache::mightContain)).isTrue();

    cache.clear(); // no events: the guard goes to pass-through and rebuilds from the empty cache
    cache.put(7L, "back");
    await("the rebuild after clear() finished", () -> !cache.isPassThrough());

    assertThat(cache.stats().size()).isOne();
    assertThat(cache.get(7L)).isEqualTo("back");
    assertThat(LongStream.range(0, PRESENT).filter(cache::mightContain).count())
        .as("after the rebuild only 7 and rare false positives")
        .isLessThan(10);
  }

  @Test
  void aKeyRemovedAndCreatedAgainDoesNotPileUpFingerprints() {
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>) manager.createCache(name, config());
    for (int round = 0; round < 100; round++) {
      cache.put(1L, "round " + round);
      cache.remove(1L);
    }
    cache.put(1L, "last");

    // each remove(key) takes the copy its put added; else 8 copies would fill the key's bucket
    // pair, the filter would grow, and a rebuild would scan the cache (which JCache counts as an
    // access of every entry)
    assertThat(cache.stats().size()).isOne();
    assertThat(cache.stats().rebuilds()).isZero();
    assertThat(cache.get(1L)).isEqualTo("last");
  }

  @Test
  void configurationHidesTheGuardsListenerOnly() {
    MutableConfiguration<Long, String> config =
        config()
            .addCacheEntryListenerConfiguration(
                new javax.cache.configuration.MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(NoOpListener.class), null, false, false));
    Cache<Long, String> cache = manager.createCache(name, config);

    assertThat(
            cache
                .getConfiguration(javax.cache.configuration.CompleteConfiguration.class)
                .getCacheEntryListenerConfigurations())
        .containsExactlyElementsOf(config.getCacheEntryListenerConfigurations());
    assertThat(config.getCacheEntryListenerConfigurations())
        .as("caller's configuration unchanged")
        .hasSize(1);
  }

  @Test
  void managerReturnsOneGuardedCachePerNameAndItsOwnManager() {
    Cache<Long, String> created = manager.createCache(name, config());
    CacheManager same = provider.getCacheManager();

    assertThat(same).isSameAs(manager);
    assertThat(manager.getCache(name, Long.class, String.class)).isSameAs(created);
    assertThat(manager.<Long, String>getCache(name)).isSameAs(created);
    assertThat(created.getCacheManager()).isSameAs(manager);
    assertThat(created.unwrap(GuardedCache.class)).isSameAs(created);
    assertThat(manager.unwrap(GuardedCacheManager.class)).isSameAs(manager);
    manager.destroyCache(name);
    assertThat(manager.<Long, String>getCache(name)).isNull();
  }

  /** A listener for configurations; does nothing. */
  public static final class NoOpListener
      implements javax.cache.event.CacheEntryCreatedListener<Long, String>, java.io.Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public void onCreated(
        Iterable<javax.cache.event.CacheEntryEvent<? extends Long, ? extends String>> events) {}
  }
}
