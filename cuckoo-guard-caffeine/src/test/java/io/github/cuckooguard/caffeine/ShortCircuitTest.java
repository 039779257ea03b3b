package io.github.cuckooguard.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardStats;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Definite misses skip the cache and count in the guard's statistics; the cache's own statistics
 * read as plain Caffeine's would, short-circuited misses included.
 */
class ShortCircuitTest {

  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).fpp(0.001).seed(3).build();
  private final Cache<Long, String> cache =
      guard.wrap(Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run).recordStats());

  @Test
  void getIfPresentOfADefiniteMissDoesNotTouchTheCache() {
    LongStream.range(0, 1_000).forEach(k -> cache.put(k, "v"));
    CacheStats cacheBefore = cache.stats();
    GuardStats guardBefore = guard.stats();

    int found = 0;
    for (long k = 1_000_000; k < 1_010_000; k++) {
      if (cache.getIfPresent(k) != null) {
        found++;
      }
    }
    assertThat(found).isZero();

    long definiteMisses = guard.stats().definiteMisses() - guardBefore.definiteMisses();
    long passedToCache = 10_000 - definiteMisses;
    // fpp 0.001 over 10,000 absent keys: about 10 false positives; 100 is > 25 sigma away.
    assertThat(passedToCache).isLessThan(100);
    assertThat(guard.stats().lookups() - guardBefore.lookups()).isEqualTo(10_000);
    assertThat(guard.stats().falsePositives() - guardBefore.falsePositives())
        .isEqualTo(passedToCache);
    assertThat(cache.stats().missCount() - cacheBefore.missCount())
        .as("every miss counts, short-circuited or not")
        .isEqualTo(10_000);
  }

  @Test
  void getAllPresentOmitsDefiniteMissesWithoutAskingTheCache() {
    LongStream.range(0, 100).forEach(k -> cache.put(k, "v"));
    CacheStats before = cache.stats();
    List<Long> keys = LongStream.range(50, 2_050).boxed().collect(Collectors.toList());
    Map<Long, String> present = cache.getAllPresent(keys);
    assertThat(present.keySet())
        .containsExactlyElementsOf(LongStream.range(50, 100).boxed().toList());
    long falsePositives = guard.stats().falsePositives();
    assertThat(cache.stats().hitCount() - before.hitCount()).isEqualTo(50);
    assertThat(cache.stats().missCount() - before.missCount())
        .as("one per distinct absent key")
        .isEqualTo(2_000 - 50);
    assertThat(falsePositives).isLessThan(30);
  }

  @Test
  void mightContainIsExposedForCallersThatRouteAroundTheCache() {
    cache.put(42L, "here");
    assertThat(guard.mightContain(42L)).isTrue();
    assertThat(guard.mightContain(43L)).isFalse();
    guard.reportFalsePositive(43L);
    assertThat(guard.stats().falsePositives()).isEqualTo(1);
  }

  /**
   * After 100 short-circuited misses and 1 hit, Micrometer's CaffeineCacheMetrics (which reads
   * {@code cache.stats()}) showed a 100 % hit ratio.
   */
  @Test
  void shortCircuitedMissesCountAsMissesInTheCachesStatistics() {
    cache.put(1L, "v");
    for (long k = 1_000; k < 1_100; k++) {
      assertThat(cache.getIfPresent(k)).isNull();
    }
    assertThat(cache.getIfPresent(1L)).isEqualTo("v");
    assertThat(guard.stats().definiteMisses())
        .as("the guard answered nearly all of them")
        .isGreaterThan(90);
    CacheStats stats = cache.stats();
    assertThat(stats.missCount()).isEqualTo(100);
    assertThat(stats.hitCount()).isEqualTo(1);
    assertThat(stats.hitRate()).isEqualTo(1.0 / 101);
    assertThat(stats.requestCount()).isEqualTo(101);
  }

  /** Plain puts added load time while loadSuccessCount stayed 0. */
  @Test
  void plainWritesRecordNoLoadsAndNoLoadTime() {
    ConcurrentMap<Long, String> map = cache.asMap();
    for (long k = 0; k < 1_000; k++) {
      cache.put(k, "new");
      cache.put(k, "replaced");
      map.put(k, "again");
      map.putIfAbsent(k, "present");
      map.putIfAbsent(k + 10_000, "absent");
      map.merge(k + 20_000, "inserted", String::concat);
      map.replace(k, "r");
      map.remove(k + 10_000, "absent");
    }
    cache.putAll(Map.of(1L, "a", 50_000L, "b"));
    cache.invalidate(3L);
    cache.invalidate(999_999L);
    map.remove(4L);
    cache.invalidateAll(List.of(5L, 6L));
    cache.invalidateAll();
    CacheStats stats = cache.stats();
    assertThat(stats.loadCount()).isZero();
    assertThat(stats.totalLoadTime()).as("load time without loads").isZero();
    assertThat(stats).isEqualTo(CacheStats.empty());
  }

  @Test
  void cacheStatisticsMatchPlainCaffeineDespiteTheGuard() {
    Cache<Long, String> plain =
        Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run).recordStats().build();
    Consumer<Cache<Long, String>> workload =
        c -> {
          ConcurrentMap<Long, String> map = c.asMap();
          LongStream.range(0, 100).forEach(k -> c.put(k, "v"));
          c.putAll(Map.of(200L, "a", 201L, "b"));
          map.put(1L, "replaced");
          map.putIfAbsent(2L, "present");
          map.putIfAbsent(300L, "absent");
          map.merge(301L, "new", String::concat);
          map.merge(301L, "more", String::concat);
          map.remove(3L, "wrong");
          map.remove(4L, "v");
          c.invalidate(5L);
          c.invalidate(999L);
          c.invalidateAll(List.of(6L, 7L));
          map.keySet().removeIf(k -> k > 90 && k < 100);
          c.get(8L, k -> "never");
          c.get(400L, k -> "loaded");
          c.getIfPresent(9L);
          c.getIfPresent(777_777L);
          c.getAllPresent(List.of(9L, 10L, 777_778L, 777_778L));
          c.getAll(List.of(10L, 500L), keys -> Map.of(500L, "bulk"));
          map.compute(11L, (k, v) -> v + "!");
          c.invalidateAll();
        };
    workload.accept(plain);
    workload.accept(cache);
    CacheStats expected = plain.stats();
    CacheStats actual = cache.stats();
    assertThat(actual.hitCount()).isEqualTo(expected.hitCount());
    assertThat(actual.missCount()).isEqualTo(expected.missCount());
    assertThat(actual.loadSuccessCount()).isEqualTo(expected.loadSuccessCount());
    assertThat(actual.loadFailureCount()).isEqualTo(expected.loadFailureCount());
    assertThat(actual.evictionCount()).isEqualTo(expected.evictionCount());
    assertThat(actual.missCount()).as("the workload has misses").isPositive();
  }
}
