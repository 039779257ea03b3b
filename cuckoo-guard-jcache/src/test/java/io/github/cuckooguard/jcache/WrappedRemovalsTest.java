package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An existing Caffeine JCache cache wrapped with {@link GuardedCache#newBuilder}: the removals the
 * wrapper makes itself ({@code remove}, {@code getAndRemove}, {@code removeAll(keys)}, {@code
 * invoke} that removes) take their key's fingerprint, each ended by the call's own result.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WrappedRemovalsTest {

  private final List<CachingProvider> providers = new ArrayList<>();

  @AfterEach
  void close() {
    providers.forEach(CachingProvider::close);
  }

  private GuardedCache<Long, String> wrapped(String name, int fingerprintBits, long capacity) {
    CachingProvider caffeine = new CaffeineCachingProvider();
    providers.add(caffeine);
    Cache<Long, String> raw =
        caffeine
            .getCacheManager()
            .createCache(
                name, new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(raw)
            .spec(
                io.github.cuckooguard.GuardSpec.newBuilder()
                    .expectedInsertions(capacity)
                    .fingerprintBits(fingerprintBits)
                    .build())
            .build();
    await("the initial scan", () -> !cache.isPassThrough());
    return cache;
  }

  @Test
  void removeAllAndRemovingProcessorsTakeExactlyTheRemovedKeysFingerprints() {
    GuardedCache<Long, String> cache = wrapped("exact", 16, 10_000);
    for (long k = 0; k < 1_000; k++) {
      cache.put(k, "v");
    }
    assertThat(cache.stats().size()).isEqualTo(1_000);

    // 0..499 present, 5,000..5,099 never written
    cache.removeAll(
        LongStream.concat(LongStream.range(0, 500), LongStream.range(5_000, 5_100))
            .boxed()
            .collect(Collectors.toSet()));
    assertThat(cache.stats().size()).as("after removeAll").isEqualTo(500);

    for (long k = 500; k < 750; k++) {
      cache.invoke(
          k,
          (entry, args) -> {
            entry.remove();
            return null;
          });
    }
    assertThat(cache.stats().size()).as("after removing processors").isEqualTo(250);

    for (long k = 750; k < 800; k++) { // a processor that only reads removes nothing
      String value = cache.<String>invoke(k, (entry, args) -> entry.getValue());
      assertThat(value).isEqualTo("v");
    }
    for (long k = 2_000; k < 2_100; k++) { // one that creates
      cache.invoke(
          k,
          (entry, args) -> {
            entry.setValue("new");
            return null;
          });
    }
    assertThat(cache.stats().size()).as("after creating processors").isEqualTo(350);
    cache.invokeAll(
        LongStream.range(800, 900).boxed().collect(Collectors.toSet()),
        (entry, args) -> {
          entry.remove();
          return null;
        });
    assertThat(cache.stats().size()).as("after a removing invokeAll").isEqualTo(250);

    for (long k = 0; k < 3_000; k++) {
      if (cache.delegate().containsKey(k)) {
        assertThat(cache.mightContain(k)).as("present key %d", k).isTrue();
      }
    }
  }

  /**
   * Writers put and remove keys of their own through every call; a reader checks the keys the
   * shadow truth says are present; a rebuild every 10 ms races them. Fingerprints are 6 bits, so
   * keys share them often: a leave without its enter would show as a false negative.
   */
  @Test
  void wrapperRemovalsArePairedAlsoAcrossRebuilds() throws Exception {
    GuardedCache<Long, String> cache = wrapped("churn", 6, 4_096);
    int writers = 3;
    int keysPerWriter = 800;
    int keys = writers * keysPerWriter;
    AtomicIntegerArray truth = new AtomicIntegerArray(keys); // odd: present
    AtomicLong checks = new AtomicLong();
    AtomicLong falseNegatives = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(11 + id);
                while (!stop.get()) {
                  int k = id * keysPerWriter + random.nextInt(keysPerWriter);
                  long key = k;
                  int op = random.nextInt(3);
                  if ((truth.get(k) & 1) == 0) {
                    if (op == 0) {
                      cache.put(key, "v");
                    } else {
                      cache.invoke(
                          key,
                          (entry, args) -> {
                            entry.setValue("v");
                            return null;
                          });
                    }
                    truth.incrementAndGet(k);
                  } else {
                    truth.incrementAndGet(k);
                    switch (op) {
                      case 0 -> cache.remove(key);
                      case 1 -> cache.removeAll(Set.of(key, key + keys));
                      default ->
                          cache.invoke(
                              key,
                              (entry, args) -> {
                                entry.remove();
                                return null;
                              });
                    }
                  }
                }
              }));
    }
    threads.add(
        new Thread(
            () -> {
              SplittableRandom random = new SplittableRandom(5);
              while (!stop.get()) {
                int k = random.nextInt(keys);
                int before = truth.get(k);
                if ((before & 1) == 1) {
                  boolean maybe = cache.mightContain((long) k);
                  if (truth.get(k) == before) {
                    checks.incrementAndGet();
                    if (!maybe) {
                      falseNegatives.incrementAndGet();
                    }
                  }
                }
              }
            }));
    threads.add(
        new Thread(
            () -> {
              while (!stop.get()) {
                cache.rebuild();
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
            }));
    threads.forEach(Thread::start);
    Thread.sleep(8_000);
    stop.set(true);
    for (Thread t : threads) {
      t.join(10_000);
    }
    System.out.printf(
        "WrappedRemovalsTest: %d checks, %d false negatives, %d rebuilds%n",
        checks.get(), falseNegatives.get(), cache.stats().rebuilds());
    assertThat(falseNegatives.get()).isZero();
    assertThat(checks.get()).isGreaterThan(10_000);
    assertThat(cache.stats().rebuilds()).isGreaterThan(20);
  }
}
