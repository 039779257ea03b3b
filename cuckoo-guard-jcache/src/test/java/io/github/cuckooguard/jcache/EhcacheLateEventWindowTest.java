package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.ehcache.jsr107.EhcacheCachingProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ehcache may return from a creating put before its synchronous Created event ran (another thread
 * is delivering the ordered events). The guarded cache then aborts the write's enter and, if the
 * guard does not know the key and the key is in the cache, enters it again. Readers check keys
 * while their creating put is still running: once the provider holds the key (and nothing removes
 * keys here, no expiry, no bound) the guarded cache must not call it absent, also between that
 * abort and the re-enter.
 */
class EhcacheLateEventWindowTest {

  private static final int WRITERS = 2;
  private static final int READERS = 2;
  private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(15);

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void aKeyThePutCreatedIsNeverAbsentWhileThePutEnds() throws Exception {
    EhcacheCachingProvider delegate = new EhcacheCachingProvider();
    GuardedCachingProvider provider = new GuardedCachingProvider(delegate);
    URI uri = delegate.getDefaultURI();
    Properties properties = new Properties();
    properties.setProperty("cuckooguard.expected-insertions", "4000000");
    try (provider) {
      CacheManager manager = provider.getCacheManager(uri, null, properties);
      GuardedCache<Long, String> guarded =
          (GuardedCache<Long, String>)
              manager.createCache(
                  "late-events",
                  new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
      Cache<Long, String> raw =
          ((javax.cache.spi.CachingProvider) delegate)
              .getCacheManager(uri, null)
              .getCache("late-events", Long.class, String.class);
      AtomicLongArray current = new AtomicLongArray(WRITERS);
      for (int w = 0; w < WRITERS; w++) {
        current.set(w, -1);
      }
      AtomicBoolean done = new AtomicBoolean();
      Queue<String> falseNegatives = new ConcurrentLinkedQueue<>();
      LongAdder presentChecks = new LongAdder();
      LongAdder puts = new LongAdder();
      ExecutorService threads = Executors.newFixedThreadPool(WRITERS + READERS);
      try {
        List<Future<?>> futures = new ArrayList<>();
        long end = System.nanoTime() + RUN_NANOS;
        for (int w = 0; w < WRITERS; w++) {
          int id = w;
          futures.add(
              threads.submit(
                  () -> {
                    for (long n = 0; System.nanoTime() < end && falseNegatives.isEmpty(); n++) {
                      long k = n * WRITERS + id;
                      current.set(id, k);
                      guarded.put(k, "v");
                      puts.increment();
                    }
                    return null;
                  }));
        }
        for (int r = 0; r < READERS; r++) {
          int id = r;
          futures.add(
              threads.submit(
                  () -> {
                    int j = id % WRITERS;
                    while (!done.get() && falseNegatives.isEmpty()) {
                      j = (j + 1) % WRITERS;
                      long k = current.get(j);
                      if (k < 0 || !raw.containsKey(k)) {
                        continue;
                      }
                      presentChecks.increment();
                      // present before this lookup and never removed: "absent" is a false negative
                      if (!guarded.containsKey(k)) {
                        falseNegatives.add(
                            k + " (present at the provider: " + raw.containsKey(k) + ")");
                      }
                    }
                    return null;
                  }));
        }
        for (int w = 0; w < WRITERS; w++) {
          futures.get(w).get(60, TimeUnit.SECONDS);
        }
        done.set(true);
        for (Future<?> f : futures) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        done.set(true);
        threads.shutdownNow();
      }
      System.out.println(
          "puts "
              + puts.sum()
              + ", present checks "
              + presentChecks.sum()
              + ", false negatives "
              + falseNegatives
              + ", known once the puts returned: "
              + falseNegatives.stream()
                  .map(f -> guarded.containsKey(Long.parseLong(f.substring(0, f.indexOf(' ')))))
                  .toList());
      assertThat(falseNegatives)
          .as("keys the provider held that the guarded cache called absent")
          .isEmpty();
      assertThat(presentChecks.sum())
          .as("checks of keys whose put was running or just ended")
          .isGreaterThan(1_000);
    }
  }
}
