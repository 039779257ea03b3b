package io.github.cuckooguard.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.caffeine.internal.GuardedWrites;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code getIfPresent} and {@code getAllPresent} ask Caffeine, whose answer is exact, and only a
 * sample of their misses asks the guard (to feed its observed fpp); the cache's statistics, and a
 * {@code StatsCounter} of the user's, read as plain Caffeine's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LookupsAskCaffeineTest {

  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).fpp(0.001).seed(3).build();
  private final Cache<Long, String> cache =
      guard.wrap(Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run).recordStats());

  /** Counts what Caffeine records, as a user's {@code recordStats(supplier)} would. */
  private static final class CountingStats implements StatsCounter {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();

    @Override
    public void recordHits(int count) {
      hits.add(count);
    }

    @Override
    public void recordMisses(int count) {
      misses.add(count);
    }

    @Override
    public void recordLoadSuccess(long loadTime) {}

    @Override
    public void recordLoadFailure(long loadTime) {}

    @Override
    public void recordEviction(int weight, RemovalCause cause) {}

    @Override
    public CacheStats snapshot() {
      return CacheStats.of(hits.sum(), misses.sum(), 0, 0, 0, 0, 0);
    }
  }

  /**
   * With the guard answering definite misses itself, the user's counter saw about 10 of the 10,000
   * misses (only the false positives reached Caffeine).
   */
  @Test
  void everyLookupReachesCaffeineAndItsStatsCounter() {
    CountingStats counter = new CountingStats();
    CaffeineGuard<Long, String> g =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).fpp(0.001).seed(3).build();
    Cache<Long, String> c =
        g.wrap(
            Caffeine.newBuilder()
                .maximumSize(10_000)
                .executor(Runnable::run)
                .recordStats(() -> counter));
    LongStream.range(0, 1_000).forEach(k -> c.put(k, "v" + k));
    for (long k = 0; k < 1_000; k++) {
      assertThat(c.getIfPresent(k)).as("present key %s", k).isEqualTo("v" + k);
    }
    for (long k = 1_000_000; k < 1_010_000; k++) {
      assertThat(c.getIfPresent(k)).as("absent key %s", k).isNull();
    }
    assertThat(counter.hits.sum()).isEqualTo(1_000);
    assertThat(counter.misses.sum()).as("every miss, as Caffeine saw it").isEqualTo(10_000);
    assertThat(c.stats().missCount()).isEqualTo(10_000);
  }

  /**
   * Bound on the number of sampled puts out of {@code puts}: a sample is a binomial count with p =
   * 1/FPP_SAMPLE_EVERY (the draw is the thread's own ThreadLocalRandom, which has no seed to fix),
   * and the bound is its mean ± 6 standard deviations (a false failure about once in 10^9 runs).
   */
  private static long[] sampleBounds(long puts) {
    double p = 1.0 / GuardedWrites.FPP_SAMPLE_EVERY;
    double mean = puts * p;
    double sigma = Math.sqrt(puts * p * (1 - p));
    return new long[] {(long) Math.floor(mean - 6 * sigma), (long) Math.ceil(mean + 6 * sigma)};
  }

  /**
   * Lookups never ask the guard, neither hits nor misses; a sample of the puts of new keys does,
   * and the guard reports a false positive exactly for the sampled keys it answers "might contain"
   * for. Which puts are sampled is random, so the keys are split first by the filter's answer:
   * every sampled put of a key the filter lets through must count as a false positive, and every
   * sampled put of a key it rejects as a definite miss. Four-bit fingerprints (fpp of several
   * percent, seed 7) give enough keys of the first kind; the puts of the first kind go first, so
   * that the second kind is re-checked after them (their fingerprints can turn a rejected key into
   * a false positive). Fewer than MIN_NEGATIVES_FOR_DRIFT sampled lookups, so no drift rebuild
   * changes the filter meanwhile.
   */
  @Test
  void lookupsNeverAskTheGuardAndASampleOfNewKeysFeedsTheObservedFpp() {
    CaffeineGuard<Long, String> g =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .fingerprintBits(4)
            .seed(7)
            .build();
    Cache<Long, String> c =
        g.wrap(Caffeine.newBuilder().maximumSize(100_000).executor(Runnable::run));
    LongStream.range(0, 5_000).forEach(k -> c.put(k, "v"));
    GuardStats start = g.stats();
    for (long key = 1_000_000; key < 1_100_000; key++) {
      assertThat(c.getIfPresent(key)).isNull();
    }
    for (int i = 0; i < 10_000; i++) {
      assertThat(c.getIfPresent(1L)).isEqualTo("v");
    }
    assertThat(c.getAllPresent(LongStream.range(4_990, 5_010).boxed().toList())).hasSize(10);
    assertThat(g.stats().lookups()).as("lookups asked the guard").isEqualTo(start.lookups());

    // Per put: what the filter answers for the key just before it (this thread is the only
    // writer, so the sample, if drawn, sees the same), and whether the put asked the guard.
    int each = 2_000;
    List<Long> keys = new ArrayList<>();
    int letThrough = 0;
    for (long key = 2_000_000; keys.size() < 2 * each; key++) {
      boolean passes = g.mightContain(key);
      if (passes ? letThrough < each : keys.size() - letThrough < each) {
        keys.add(key);
        letThrough += passes ? 1 : 0;
      }
    }
    int sampled = 0;
    int sampledFalsePositives = 0;
    for (long key : keys) {
      boolean passes = g.mightContain(key);
      GuardStats before = g.stats();
      c.put(key, "new");
      GuardStats after = g.stats();
      long asked = after.lookups() - before.lookups();
      assertThat(asked).as("guard lookups of one put of a new key").isBetween(0L, 1L);
      assertThat(after.falsePositives() - before.falsePositives())
          .as("a sampled key the filter lets through is a false positive, only that: %s", key)
          .isEqualTo(asked == 1 && passes ? 1 : 0);
      assertThat(after.definiteMisses() - before.definiteMisses())
          .as("a sampled key the filter rejects is a definite miss, only that: %s", key)
          .isEqualTo(asked == 1 && !passes ? 1 : 0);
      sampled += (int) asked;
      sampledFalsePositives += asked == 1 && passes ? 1 : 0;
    }
    assertThat((long) sampled)
        .as("a sample of the %s puts of new keys", keys.size())
        .isBetween(sampleBounds(keys.size())[0], sampleBounds(keys.size())[1]);
    assertThat(sampledFalsePositives).as("sampled false positives").isPositive();
    assertThat(sampled - sampledFalsePositives).as("sampled definite misses").isPositive();

    long lookups = g.stats().lookups();
    for (int i = 0; i < 20 * GuardedWrites.FPP_SAMPLE_EVERY; i++) {
      c.put(1L, "again");
    }
    assertThat(g.stats().lookups()).as("puts over a live key are never sampled").isEqualTo(lookups);
  }

  /**
   * The sample is drawn per thread: puts of new keys on several threads at once are sampled at the
   * same rate as on one (four threads, 8,000 new keys each, the same bound).
   */
  @Test
  void newKeysOnSeveralThreadsAreSampledAtTheSameRate() throws InterruptedException {
    CaffeineGuard<Long, String> g =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(100_000)
            .seed(5)
            .build();
    Cache<Long, String> c =
        g.wrap(Caffeine.newBuilder().maximumSize(100_000).executor(Runnable::run));
    long lookupsBefore = g.stats().lookups();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      long base = 10_000_000L * (t + 1);
      threads[t] =
          new Thread(
              () -> {
                for (long k = base; k < base + 8_000; k++) {
                  c.put(k, "v");
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    for (int t = 0; t < threads.length; t++) {
      long base = 10_000_000L * (t + 1);
      for (long k = base; k < base + 8_000; k++) {
        assertThat(g.mightContain(k)).as("written key %s", k).isTrue();
      }
    }
    assertThat(g.stats().lookups() - 32_000 - lookupsBefore)
        .isBetween(sampleBounds(32_000)[0], sampleBounds(32_000)[1]);
  }

  @Test
  void getAllPresentAsksCaffeine() {
    LongStream.range(0, 100).forEach(k -> cache.put(k, "v"));
    CacheStats before = cache.stats();
    long lookupsBefore = guard.stats().lookups();
    List<Long> keys = LongStream.range(50, 2_050).boxed().collect(Collectors.toList());
    Map<Long, String> present = cache.getAllPresent(keys);
    assertThat(present.keySet())
        .containsExactlyInAnyOrderElementsOf(LongStream.range(50, 100).boxed().toList());
    assertThat(cache.stats().hitCount() - before.hitCount()).isEqualTo(50);
    assertThat(cache.stats().missCount() - before.missCount())
        .as("one per distinct absent key")
        .isEqualTo(2_000 - 50);
    assertThat(guard.stats().lookups()).as("no guard lookup").isEqualTo(lookupsBefore);
  }

  @Test
  void mightContainIsExposedForCallersThatRouteAroundTheCache() {
    cache.put(42L, "here");
    assertThat(guard.mightContain(42L)).isTrue();
    assertThat(guard.mightContain(43L)).isFalse();
    guard.reportFalsePositive(43L);
    assertThat(guard.stats().falsePositives()).isEqualTo(1);
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
