package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Caffeine's JCache provider runs even synchronous listeners on its executor, after the entry is
 * visible. These tests hold back every task submitted to that executor from a thread other than the
 * test's own (so the guard's Created event waits while the entry is already in the cache) and check
 * that the guarded cache still answers for the key: the write's {@code PendingEnter} holds its
 * fingerprint from before the provider call until the event has run. This is the path of an
 * existing Caffeine cache wrapped with {@link GuardedCache#newBuilder}; caches the guarded manager
 * creates apply their events inside Caffeine's compute, with nothing queued.
 */
class InFlightBridgeTest {

  private final CountDownLatch gate = new CountDownLatch(1);
  private final ExecutorService cacheThreads = Executors.newCachedThreadPool();
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private GuardedCachingProvider provider;
  private GuardedCache<Long, String> cache;
  private Cache<Long, String> raw;

  @BeforeEach
  void setUp() {
    Thread testThread = Thread.currentThread();
    provider = new GuardedCachingProvider(new CaffeineCachingProvider());
    CaffeineConfiguration<Long, String> config =
        new CaffeineConfiguration<Long, String>()
            .setTypes(Long.class, String.class)
            .setExecutorFactory(
                () ->
                    task -> {
                      boolean hold = Thread.currentThread() != testThread;
                      cacheThreads.execute(
                          () -> {
                            if (hold) {
                              awaitGate();
                            }
                            task.run();
                          });
                    });
    config.setCacheLoaderFactory(
        () ->
            new javax.cache.integration.CacheLoader<>() {
              @Override
              public String load(Long key) {
                return "loaded " + key;
              }

              @Override
              public java.util.Map<Long, String> loadAll(Iterable<? extends Long> keys) {
                java.util.Map<Long, String> all = new java.util.HashMap<>();
                keys.forEach(k -> all.put(k, load(k)));
                return all;
              }
            });
    // An existing cache wrapped: its guard learns creations from the Created listener, whose
    // events queue on the executor (a cache created by the guarded manager handles them inside
    // Caffeine's compute instead, CaffeineRemovalsTest).
    raw = provider.delegate().getCacheManager().createCache("bridge", config);
    cache = GuardedCache.newBuilder(raw).build();
    await("the initial scan finished", () -> !cache.isPassThrough());
  }

  private void awaitGate() {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    gate.countDown();
    provider.close();
    callers.shutdownNow();
    cacheThreads.shutdownNow();
    callers.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void keyIsNeverReportedAbsentWhileItsCreatedEventIsQueued() throws Exception {
    Future<?> writer = callers.submit(() -> cache.put(1L, "one"));
    await("the entry is visible in the provider", () -> raw.containsKey(1L));

    assertThat(cache.stats().size())
        .as("the write's pending enter holds the key's one fingerprint")
        .isOne();
    assertThat(cache.mightContain(1L)).isTrue();
    assertThat(cache.get(1L)).isEqualTo("one");
    assertThat(cache.containsKey(1L)).isTrue();
    assertThat(writer.isDone()).as("put waits for its synchronous listener").isFalse();

    gate.countDown();
    writer.get(10, TimeUnit.SECONDS);
    assertThat(cache.stats().size())
        .as("the Created event completed the write's enter, no second copy")
        .isOne();
    assertThat(cache.get(1L)).isEqualTo("one");
    cache.remove(1L);
    assertThat(cache.stats().size())
        .as("a removal through the guarded cache leaves the guard")
        .isZero();
  }

  @Test
  void loadAllKeysAreKnownWhenItsCompletionIsReported() throws Exception {
    // the load itself runs (submitted from this thread); its Created events are held back
    CompletionListenerFuture done = new CompletionListenerFuture();
    cache.loadAll(Set.of(5L, 6L), false, done);
    done.get(10, TimeUnit.SECONDS);

    // Caffeine reports completion without waiting for the Created events; the guard must know
    // anyway
    assertThat(cache.get(5L)).isEqualTo("loaded 5");
    assertThat(cache.containsKey(6L)).isTrue();
    gate.countDown();
    await("the Created events ran", () -> cache.stats().size() == 4);
    // each key entered twice (the load's enter, kept at completion, and its late event): one copy
    // leaks until the next rebuild, never a false negative
    cache.remove(5L);
    assertThat(cache.mightContain(5L)).isTrue();
  }
}
