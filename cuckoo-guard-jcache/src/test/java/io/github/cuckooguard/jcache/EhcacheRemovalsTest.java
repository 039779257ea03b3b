package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serializable;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.ExpiryPolicyBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.jsr107.Eh107Configuration;
import org.ehcache.jsr107.EhcacheCachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ehcache 3 heap-only caches created by the guarded manager follow every removal (explicit, expiry,
 * size eviction) from the store's own events ({@code internal.EhcacheRemovals}). Small fingerprints
 * (fpp 0.3) make keys share fingerprints, so a leave taken twice, or taken for a key without its
 * enter, shows up as a false negative of a colliding key.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EhcacheRemovalsTest {

  private static final long SEED = 20261201L;

  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable r : resources) {
      r.close();
    }
  }

  private static Properties smallFingerprints(double fpp, long expectedInsertions) {
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.fpp", String.valueOf(fpp));
    properties.setProperty("cuckooguard.expected-insertions", String.valueOf(expectedInsertions));
    return properties;
  }

  /**
   * A cache created through the guarded manager over Ehcache, and the provider's own view of it.
   */
  @SuppressWarnings("unchecked")
  private GuardedCache<Long, String> created(
      String name,
      javax.cache.configuration.Configuration<Long, String> config,
      double fpp,
      long expected) {
    EhcacheCachingProvider delegate = new EhcacheCachingProvider();
    GuardedCachingProvider provider = new GuardedCachingProvider(delegate);
    resources.add(provider::close);
    URI uri = delegate.getDefaultURI();
    CacheManager manager = provider.getCacheManager(uri, null, smallFingerprints(fpp, expected));
    return (GuardedCache<Long, String>) manager.createCache(name, config);
  }

  /** Keys below {@value #ETERNAL} never expire; the others expire 30 ms after creation. */
  static final long ETERNAL = 2_000;

  static final class SplitExpiry implements ExpiryPolicy, Serializable {
    private static final long serialVersionUID = 1L;
    static final ThreadLocal<Long> KEY = new ThreadLocal<>();

    @Override
    public Duration getExpiryForCreation() {
      Long key = KEY.get();
      return key != null && key >= ETERNAL
          ? new Duration(TimeUnit.MILLISECONDS, 30)
          : Duration.ETERNAL;
    }

    @Override
    public Duration getExpiryForAccess() {
      return null;
    }

    @Override
    public Duration getExpiryForUpdate() {
      return null;
    }
  }

  /**
   * Ehcache reports an expired entry's expiry before it runs an entry processor on it; a processor
   * that throws then fails the operation, and the expired entry stays (its next access reports its
   * expiry again). The leave announced by the failed operation must not be taken: each expiring key
   * leaves exactly once. Taking the leave inside the store's compute (as on Caffeine) takes it
   * twice and makes eternal keys that share fingerprints with them false negatives (measured: fails
   * that way).
   */
  @Test
  void aProcessorThatFailsOnAnExpiredEntryDoesNotTakeItsKeysLeaveTwice() throws Exception {
    MutableConfiguration<Long, String> config =
        new MutableConfiguration<Long, String>()
            .setTypes(Long.class, String.class)
            .setExpiryPolicyFactory((Factory<ExpiryPolicy>) SplitExpiry::new);
    GuardedCache<Long, String> cache = created("failing-processor", config, 0.3, 8_000);
    for (long k = 0; k < 2 * ETERNAL; k++) {
      SplitExpiry.KEY.set(k);
      cache.put(k, "v" + k);
    }
    SplitExpiry.KEY.remove();
    assertThat(cache.stats().size()).isEqualTo(2 * ETERNAL);
    Thread.sleep(60); // the keys from ETERNAL on have expired; nothing removed them yet

    long failed = 0;
    for (long k = ETERNAL; k < 2 * ETERNAL; k++) {
      // invokeAll reports the failure in the key's result: the call returns, and its write ends
      // without a spare copy (an invoke that throws would keep one, which would hide a double
      // leave)
      Map<Long, EntryProcessorResult<Object>> results =
          cache.invokeAll(
              Set.of(k),
              (entry, args) -> {
                throw new IllegalStateException("processor fails");
              });
      try {
        results.get(k).get();
      } catch (EntryProcessorException e) {
        failed++;
      }
      assertThat(cache.containsKey(k)).isFalse(); // expires it (again)
    }
    assertThat(failed).isEqualTo(ETERNAL);

    long falseNegatives = 0;
    for (long k = 0; k < ETERNAL; k++) {
      if (!cache.mightContain(k)) {
        falseNegatives++;
      }
    }
    assertThat(falseNegatives).as("eternal keys the guard calls absent").isZero();
    assertThat(cache.stats().size())
        .as("fingerprints: the eternal keys' (a failed operation leaves at most a spare)")
        .isBetween(ETERNAL, ETERNAL + ETERNAL / 50);

    cache.removeAll(); // one REMOVED event per entry: each eternal key leaves once
    assertThat(cache.stats().size())
        .as("fingerprints after removeAll(): the spares only")
        .isLessThanOrEqualTo(ETERNAL / 50);
  }

  /** An entry processor for the churn. */
  interface Processor<T>
      extends javax.cache.processor.EntryProcessor<Long, String, T>, Serializable {}

  /**
   * Writers, removers and a reader on a heap-bounded cache with a TTL; the shadow truth is the
   * provider (a check counts only while no creating call of its key is in flight, as in {@link
   * ChurnTest}). Then the leak at steady state: (fingerprints &minus; entries) / entries.
   */
  @Test
  void churnWithExpiryEvictionAndRemovalsHasNoFalseNegativeAndLeaksAtMostTwoPercent()
      throws Exception {
    double leak = churn("churn", false);
    assertThat(leak).as("leak (fingerprints - entries) / entries").isLessThanOrEqualTo(0.02);
  }

  /**
   * The same with a rebuild every 20 ms racing the removals: 0 false negatives. A rebuild keeps the
   * copy its scan read for a key removed while it runs (the core never takes a scanned copy):
   * spares until the next rebuild. How many depends on how much churn the last racing rebuild met,
   * which is the machine's timing (CI runs measured 0.0005, 0.133 and 0.55 of the entries), so the
   * spares are not bounded here; what is bounded is that they go: after the churn one quiet rebuild
   * runs, and the leak at steady state is then the 2 % of the test above. A rebuild that keeps a
   * second copy of every entry (1.0) fails it.
   */
  @Test
  void churnRacingRebuildsHasNoFalseNegativeAndAQuietRebuildClearsTheSpares() throws Exception {
    double leak = churn("racing", true);
    assertThat(leak).as("leak (fingerprints - entries) / entries").isLessThanOrEqualTo(0.02);
  }

  private double churn(String name, boolean racingRebuilds) throws Exception {
    int keys = 6_000;
    int bound = 2_000;
    GuardedCache<Long, String> cache =
        created(
            name,
            Eh107Configuration.fromEhcacheCacheConfiguration(
                CacheConfigurationBuilder.newCacheConfigurationBuilder(
                        Long.class, String.class, ResourcePoolsBuilder.heap(bound))
                    .withExpiry(
                        ExpiryPolicyBuilder.timeToLiveExpiration(
                            java.time.Duration.ofMillis(500)))),
            0.1,
            2 * bound);
    Cache<Long, String> raw = cache.delegate();
    AtomicIntegerArray started = new AtomicIntegerArray(keys);
    AtomicIntegerArray finished = new AtomicIntegerArray(keys);
    Queue<String> falseNegatives = new ConcurrentLinkedQueue<>();
    LongAdder presentChecks = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(6); // bounds a loaded machine
    // with racing rebuilds the writers go on (past their 12,000 operations, up to 20 s) until three
    // rebuilds have completed beside them: a CI run's writers finished after two
    AtomicInteger rebuildsDone = new AtomicInteger(racingRebuilds ? 0 : 3);
    long rebuildDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    ExecutorService threads = Executors.newFixedThreadPool(5);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        SplittableRandom random = new SplittableRandom(SEED + w);
        futures.add(
            threads.submit(
                () -> {
                  for (int op = 0;
                      op < 12_000 && System.nanoTime() - deadline < 0
                          || rebuildsDone.get() < 3 && System.nanoTime() - rebuildDeadline < 0;
                      op++) {
                    long k = random.nextInt(keys);
                    int kind = random.nextInt(12);
                    if (kind < 5) {
                      started.incrementAndGet((int) k);
                      try {
                        if (kind < 3) {
                          cache.put(k, "v" + op);
                        } else if (kind == 3) {
                          cache.putIfAbsent(k, "v" + op);
                        } else {
                          cache.getAndPut(k, "v" + op);
                        }
                      } finally {
                        finished.incrementAndGet((int) k);
                      }
                    } else if (kind == 5) {
                      cache.remove(k);
                    } else if (kind == 6) {
                      cache.getAndRemove(k);
                    } else if (kind == 7) {
                      cache.removeAll(Set.of(k, (k + 1) % keys));
                    } else if (kind == 8) {
                      cache.invoke(
                          k,
                          (Processor<Object>)
                              (entry, args) -> {
                                entry.remove();
                                return null;
                              });
                    } else {
                      cache.get(k);
                    }
                  }
                  return null;
                }));
      }
      futures.add(
          threads.submit(
              () -> {
                SplittableRandom random = new SplittableRandom(SEED - 1);
                while (!stop.get()) {
                  long k = random.nextInt(keys);
                  int before = started.get((int) k);
                  if (finished.get((int) k) != before) {
                    continue;
                  }
                  boolean maybe = cache.mightContain(k);
                  boolean present = raw.containsKey(k);
                  if (started.get((int) k) != before || !present) {
                    continue;
                  }
                  presentChecks.increment();
                  if (!maybe) {
                    falseNegatives.add(k + " " + cache.stats());
                  }
                }
                return null;
              }));
      futures.add(
          threads.submit(
              () -> {
                while (racingRebuilds && !stop.get()) {
                  try {
                    cache.rebuild().join();
                    rebuildsDone.incrementAndGet();
                  } catch (java.util.concurrent.CompletionException e) {
                    // a rebuild may fail (a full filter of tiny fingerprints): it retries
                  }
                  Thread.sleep(20);
                }
                return null;
              }));
      for (int w = 0; w < 3; w++) {
        futures.get(w).get(45, TimeUnit.SECONDS);
      }
      stop.set(true);
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(falseNegatives).as("keys present that the guard called absent").isEmpty();
    assertThat(presentChecks.sum()).as("checks of present keys").isGreaterThan(500);
    if (racingRebuilds) {
      assertThat(cache.stats().rebuilds())
          .as("rebuilds raced the removals")
          .isGreaterThanOrEqualTo(3);
      long racedEntries = 0;
      for (long k = 0; k < keys; k++) {
        if (raw.containsKey(k)) {
          racedEntries++;
        }
      }
      long racedFingerprints = cache.stats().size();
      cache.rebuild().get(30, TimeUnit.SECONDS); // nothing runs beside it: no spare is kept
      System.out.printf(
          "%s: after the race %d entries, %d fingerprints (spares %.4f); after a quiet rebuild %d%n",
          name,
          racedEntries,
          racedFingerprints,
          racedEntries == 0 ? 0.0 : (double) (racedFingerprints - racedEntries) / racedEntries,
          cache.stats().size());
    }

    // steady state: the bounded cache refilled after the churn (every key put once: 4,000
    // evictions), then every entry present (a lookup removes an expired one, with its event),
    // against the fingerprints, the churn's leftovers included
    for (long k = 0; k < keys; k++) {
      cache.put(k, "refill");
    }
    long entries = 0;
    for (long k = 0; k < keys; k++) {
      if (raw.containsKey(k)) {
        entries++;
      }
    }
    long fingerprints = cache.stats().size();
    Thread.sleep(550);
    for (long k = 0; k < keys; k++) {
      assertThat(raw.containsKey(k)).isFalse(); // all expired now, each removed with its event
    }
    long left = cache.stats().size();
    System.out.printf(
        name
            + ": Ehcache heap(%d), TTL 500 ms: churn, refill: %d entries, %d fingerprints, leak %.4f;"
            + " once all expired %d fingerprints left%n",
        bound,
        entries,
        fingerprints,
        (double) (fingerprints - entries) / entries,
        left);
    assertThat(entries).as("entries after the refill").isGreaterThan(bound / 2);
    assertThat(left)
        .as("fingerprints left once every entry expired: the spares")
        .isEqualTo(fingerprints - entries);
    return (double) (fingerprints - entries) / entries;
  }
}
