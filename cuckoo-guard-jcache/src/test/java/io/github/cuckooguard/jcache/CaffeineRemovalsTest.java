package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Caffeine-JCache caches created by the guarded manager follow every removal inside Caffeine's
 * atomic removal: explicit ({@code remove}, {@code getAndRemove}, {@code removeAll}, {@code
 * invoke}), expiry (JCache expiry policy on a controllable ticker) and size eviction. One writer
 * churns a key space larger than the cache while rebuilds run in the background, racing its
 * removals; after every step the shadow truth (the cache itself: the writer is the only thread that
 * changes it, so nothing can appear between the two lookups) is compared with the guard: 0 false
 * negatives. Small fingerprints (fpp 0.3) make keys share fingerprints, so an unpaired leave shows
 * up as a false negative of a colliding key. The leak is (fingerprints &minus; entries) / entries
 * at checkpoints once the cache is full, after {@code cleanUp()}.
 *
 * <p>Deterministic: one seeded writer, a fake ticker, Caffeine on a direct executor; only the
 * background rebuilds' timing varies, and the invariant must hold for every timing.
 */
class CaffeineRemovalsTest {

  private static final int KEYS = 6_000;
  private static final int MAX_SIZE = 2_000;
  private static final int OPS = 120_000;
  private static final long SEED = 20261201L;

  /** A clock the test moves. */
  static final class FakeTicker implements Ticker {
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
      return nanos.get();
    }
  }

  record Result(long falseNegatives, double maxLeak, double lastLeak, long rebuilds) {}

  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable r : resources) {
      r.close();
    }
  }

  private static CaffeineConfiguration<Long, String> config(FakeTicker ticker) {
    return new CaffeineConfiguration<Long, String>()
        .setTypes(Long.class, String.class)
        .setTickerFactory(() -> ticker)
        .setExecutorFactory(() -> Runnable::run)
        .setMaximumSize(OptionalLong.of(MAX_SIZE))
        .setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.SECONDS, 10)));
  }

  private GuardedCache<Long, String> created(String name, FakeTicker ticker) {
    GuardedCachingProvider provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    resources.add(provider::close);
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.fpp", "0.3");
    properties.setProperty("cuckooguard.expected-insertions", String.valueOf(MAX_SIZE * 2));
    @SuppressWarnings("unchecked")
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>)
            provider
                .getCacheManager(provider.getDefaultURI(), null, properties)
                .createCache(name, config(ticker));
    return cache;
  }

  /**
   * Today's path on main for every Caffeine cache: an existing cache wrapped, Created events only.
   */
  private GuardedCache<Long, String> wrapped(String name, FakeTicker ticker) {
    CaffeineCachingProvider delegate = new CaffeineCachingProvider();
    resources.add(delegate::close);
    Cache<Long, String> raw = delegate.getCacheManager().createCache(name, config(ticker));
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(raw).fpp(0.3).expectedInsertions(MAX_SIZE * 2).build();
    await("the initial scan finished", () -> !cache.isPassThrough());
    return cache;
  }

  @SuppressWarnings("unchecked")
  private static Result churn(
      GuardedCache<Long, String> cache, FakeTicker ticker, boolean racingRebuilds) {
    Cache<Long, String> raw = cache.unwrap(Cache.class);
    com.github.benmanes.caffeine.cache.Cache<Long, ?> caffeine =
        cache.unwrap(com.github.benmanes.caffeine.cache.Cache.class);
    SplittableRandom random = new SplittableRandom(SEED);
    long falseNegatives = 0;
    double maxLeak = 0;
    double lastLeak = 0;
    CompletableFuture<Void> rebuild = CompletableFuture.completedFuture(null);
    for (int op = 1; op <= OPS; op++) {
      long key = random.nextInt(KEYS);
      int kind = random.nextInt(100);
      if (kind < 50) {
        cache.put(key, "v" + op);
      } else if (kind < 60) {
        cache.remove(key);
      } else if (kind < 65) {
        cache.getAndRemove(key);
      } else if (kind < 70) {
        cache.removeAll(Set.of(key, (key + 1) % KEYS, (key + 2) % KEYS));
      } else if (kind < 75) {
        cache.invoke(
            key,
            (entry, args) -> {
              entry.remove();
              return null;
            });
      } else {
        cache.get(key);
      }
      if (op % 20 == 0) {
        ticker.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(5)); // a TTL of 10 s is 40,000 ops
      }
      if (racingRebuilds && op % 3_000 == 0 && rebuild.isDone()) {
        rebuild = cache.rebuild();
      }
      long probe = random.nextInt(KEYS);
      for (long k : new long[] {key, probe, (key + 1) % KEYS, (key + 2) % KEYS}) {
        if (!cache.mightContain(k) && raw.containsKey(k)) {
          falseNegatives++;
        }
      }
      if (op % 2_000 == 0) { // a full sweep; Caffeine's map lookup has no side effects
        for (long k = 0; k < KEYS; k++) {
          if (!cache.mightContain(k) && caffeine.asMap().containsKey(k)) {
            falseNegatives++;
          }
        }
      }
      if (op % 10_000 == 0 && op >= 50_000 && !cache.isPassThrough() && rebuild.isDone()) {
        caffeine.cleanUp();
        long entries = caffeine.estimatedSize();
        lastLeak = (double) (cache.stats().size() - entries) / entries;
        maxLeak = Math.max(maxLeak, lastLeak);
      }
    }
    rebuild.join();
    return new Result(falseNegatives, maxLeak, lastLeak, cache.stats().rebuilds());
  }

  @Test
  void expiryEvictionAndEveryRemovalLeaveTheFilterWithoutFalseNegatives() {
    FakeTicker ticker = new FakeTicker();
    Result followed = churn(created("followed", ticker), ticker, false);
    FakeTicker baseTicker = new FakeTicker();
    Result today = churn(wrapped("today", baseTicker), baseTicker, false);
    System.out.printf(
        "leak (fingerprints - entries) / entries at steady state: followed max %.4f last %.4f"
            + " (rebuilds %d); wrapped, Created events only (main's behaviour) max %.4f last %.4f (rebuilds %d)%n",
        followed.maxLeak(),
        followed.lastLeak(),
        followed.rebuilds(),
        today.maxLeak(),
        today.lastLeak(),
        today.rebuilds());

    assertThat(followed.falseNegatives()).isZero();
    assertThat(today.falseNegatives()).isZero();
    assertThat(followed.maxLeak()).as("leak at steady state").isLessThanOrEqualTo(0.02);
  }

  @Test
  void removalsRacingRebuildsMakeNoFalseNegatives() {
    FakeTicker ticker = new FakeTicker();
    Result result = churn(created("racing", ticker), ticker, true);
    System.out.printf(
        "racing rebuilds: %d rebuilds, leak max %.4f last %.4f%n",
        result.rebuilds(), result.maxLeak(), result.lastLeak());

    assertThat(result.falseNegatives()).isZero();
    assertThat(result.rebuilds()).isGreaterThanOrEqualTo(20);
  }

  /**
   * Entries expired but not yet evicted are hidden from Caffeine's iterators; a rebuild that
   * skipped them would lack their copies, and their eviction after the swap would take colliding
   * keys' copies. A regression test for the rewound scan ({@code ScanTicker}); note that a scan
   * without the rewind was not caught here (measured): on a direct executor Caffeine evicted the
   * expired entries while the scan passed them, which pairs their leaves inside the rebuild.
   */
  @Test
  @SuppressWarnings("unchecked")
  void expiredEntriesHiddenFromTheIteratorAreScannedSoTheirEvictionIsPaired() {
    FakeTicker ticker = new FakeTicker();
    GuardedCache<Long, String> cache = created("hidden", ticker);
    com.github.benmanes.caffeine.cache.Cache<Long, ?> caffeine =
        cache.unwrap(com.github.benmanes.caffeine.cache.Cache.class);
    for (long k = 0; k < 1_000; k++) {
      cache.put(k, "old");
    }
    ticker.nanos.addAndGet(TimeUnit.SECONDS.toNanos(6));
    for (long k = 1_000; k < 2_000; k++) {
      cache.put(k, "fresh");
    }
    ticker.nanos.addAndGet(
        TimeUnit.SECONDS.toNanos(5)); // the old keys expired, nothing evicted them yet
    assertThat(cache.stats().size()).isEqualTo(2_000);

    cache.rebuild().join();
    caffeine.cleanUp(); // evicts the old keys: 1,000 leaves after the swap

    long falseNegatives = 0;
    for (long k = 1_000; k < 2_000; k++) {
      if (!cache.mightContain(k)) {
        falseNegatives++;
      }
    }
    assertThat(falseNegatives).isZero();
    assertThat(caffeine.estimatedSize()).isEqualTo(1_000);
    assertThat(cache.stats().size()).as("one copy per entry").isEqualTo(1_000);
  }
}
