package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static io.github.cuckooguard.jcache.TestSupport.calls;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.KeySink;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A guard that cannot know the cache's keys (a cache that held entries before it was wrapped, a
 * {@code markStale}, a failure) answers "might be present" for every key until a rebuild has read
 * them from the cache.
 */
class RebuildTest {

  private CachingProvider caffeine;
  private CacheManager rawManager;
  private Cache<Long, String> raw;

  /** Runs the guard's rebuilds when the test says so. */
  private final Queue<Runnable> held = new ArrayDeque<>();

  private final Executor manual = held::add;

  @BeforeEach
  void setUp() {
    caffeine = new CaffeineCachingProvider();
    rawManager = caffeine.getCacheManager();
    raw =
        rawManager.createCache(
            "existing",
            new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
    for (long k = 0; k < 1_000; k++) {
      raw.put(k, "before");
    }
  }

  @AfterEach
  void tearDown() {
    caffeine.close();
  }

  private void runHeldRebuilds() {
    while (!held.isEmpty()) {
      held.poll().run();
    }
  }

  @Test
  void keysPresentBeforeTheGuardExistedComeFromTheInitialScan() {
    Map<String, AtomicInteger> log = TestSupport.newCallLog();
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(TestSupport.recording(raw, log)).executor(manual).build();

    assertThat(cache.isPassThrough()).isTrue();
    assertThat(cache.get(5_000L)).isNull();
    assertThat(calls(log, "get")).as("in pass-through every lookup reaches the provider").isOne();
    assertThat(cache.get(3L)).isEqualTo("before");
    cache.put(2_000L, "while held"); // its Created event reaches the guard before the scan
    raw.remove(7L); // gone before the scan: never emitted

    runHeldRebuilds();

    assertThat(cache.isPassThrough()).isFalse();
    assertThat(LongStream.range(0, 1_000).filter(k -> k != 7).allMatch(cache::mightContain))
        .isTrue();
    assertThat(cache.mightContain(2_000L)).isTrue();
    long misses = LongStream.range(10_000, 11_000).filter(k -> !cache.mightContain(k)).count();
    assertThat(misses).as("absent keys are short-circuited again (fpp 0.01)").isGreaterThan(950);
    log.clear();
    assertThat(
            LongStream.range(10_000, 11_000)
                .filter(k -> !cache.mightContain(k))
                .mapToObj(cache::get)
                .allMatch(v -> v == null))
        .isTrue();
    assertThat(calls(log, "get")).isZero();
  }

  @Test
  void markStaleMeansPassThroughUntilARebuildHasReadTheCache() {
    GuardedCache<Long, String> cache = GuardedCache.newBuilder(raw).executor(manual).build();
    runHeldRebuilds();
    long absent =
        LongStream.range(10_000, 11_000)
            .filter(k -> !cache.mightContain(k))
            .findFirst()
            .orElseThrow();

    cache.markStale("test: events may have been lost");
    assertThat(cache.isPassThrough()).isTrue();
    assertThat(cache.mightContain(absent)).isTrue();

    runHeldRebuilds();
    assertThat(cache.isPassThrough()).isFalse();
    assertThat(cache.mightContain(absent)).isFalse();
    assertThat(cache.stats().rebuilds()).isEqualTo(2);
  }

  @Test
  void aGuardThatCannotHashAKeyStaysInPassThroughRatherThanMissIt() {
    GuardedCache<Long, String> cache =
        GuardedCache.newBuilder(raw).funnel(new FailingFunnel(13L)).build();
    await("the initial scan failed", () -> cache.stats().lastRebuildFailure() != null);
    assertThat(cache.isPassThrough()).isTrue();

    raw.remove(13L);
    cache.rebuild().join();
    assertThat(cache.isPassThrough()).isFalse();

    cache.put(
        13L, "again"); // the Created event cannot enter it: the listener marks the guard stale
    assertThat(cache.isPassThrough()).isTrue();
    assertThat(cache.get(13L)).isEqualTo("again");
    assertThat(cache.containsKey(13L)).isTrue();
  }

  /** Hashes keys by value, except one key, for which it throws. */
  static final class FailingFunnel implements Funnel<Long> {
    private final long poison;

    FailingFunnel(long poison) {
      this.poison = poison;
    }

    @Override
    public void funnel(Long key, KeySink sink) {
      if (key == poison) {
        throw new IllegalStateException("cannot hash " + key);
      }
      sink.putLong(key);
    }
  }
}
