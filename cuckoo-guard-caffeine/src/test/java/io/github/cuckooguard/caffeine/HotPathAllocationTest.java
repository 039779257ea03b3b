package io.github.cuckooguard.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.github.cuckooguard.Funnels;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The guarded lookups allocate nothing of the adapter's own. Measured with the JVM's per-thread
 * allocation counter over many calls after a warm-up, against plain Caffeine on the same key.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HotPathAllocationTest {

  private static final int CALLS = 200_000;

  /**
   * Less than the smallest object (16 bytes): one allocation per call, or per second call, fails.
   */
  private static final double SLACK = 7.5;

  /** Boxed once, so that no call boxes a key. */
  private static final Long PRESENT = 7_000_000_007L;

  private static final Long ABSENT = 1_000_000_007L;
  private static final Function<Long, String> LOADER = key -> "loaded";

  private static com.sun.management.ThreadMXBean threads;

  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).fpp(0.001).seed(18).build();
  private final Cache<Long, String> cache =
      guard.wrap(Caffeine.newBuilder().maximumSize(1_000).recordStats());
  private final CaffeineGuard<Long, String> loadingGuard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).fpp(0.001).seed(18).build();
  private final LoadingCache<Long, String> loading =
      loadingGuard.wrap(Caffeine.newBuilder().maximumSize(1_000), key -> "loaded");

  @BeforeAll
  static void allocationCounter() {
    threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);
  }

  /** Bytes allocated per call of {@code call}, after as many calls of warm-up. */
  private static double bytesPerCall(Consumer<Long> call, Long key) {
    for (int i = 0; i < CALLS; i++) {
      call.accept(key);
    }
    long thread = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < CALLS; i++) {
      call.accept(key);
    }
    return (double) (threads.getThreadAllocatedBytes(thread) - before) / CALLS;
  }

  /**
   * Lookups are Caffeine's own; the one miss in 64 that also asks the guard adds the guard's
   * lookup, which allocates nothing for a ready funnel.
   */
  @Test
  void getIfPresentAllocatesNoMoreThanPlainCaffeine() {
    Cache<Long, String> plain = Caffeine.newBuilder().maximumSize(1_000).recordStats().build();
    plain.put(PRESENT, "v");
    cache.put(PRESENT, "v");
    double plainAbsent = bytesPerCall(plain::getIfPresent, ABSENT);
    double plainPresent = bytesPerCall(plain::getIfPresent, PRESENT);
    assertThat(bytesPerCall(guard::mightContain, ABSENT))
        .as("the guard's lookup")
        .isLessThan(SLACK);
    assertThat(bytesPerCall(cache::getIfPresent, ABSENT))
        .as("miss, vs %s for plain Caffeine's", plainAbsent)
        .isLessThanOrEqualTo(plainAbsent + SLACK);
    assertThat(bytesPerCall(cache::getIfPresent, PRESENT))
        .as("hit, vs %s for plain Caffeine's", plainPresent)
        .isLessThanOrEqualTo(plainPresent + SLACK);
  }

  @Test
  void loadsOfPresentKeysAllocateNothing() {
    cache.put(PRESENT, "v");
    loading.get(PRESENT);
    ConcurrentMap<Long, String> map = cache.asMap();
    assertThat(bytesPerCall(key -> cache.get(key, LOADER), PRESENT))
        .as("Cache.get(k, fn)")
        .isLessThanOrEqualTo(SLACK);
    assertThat(bytesPerCall(loading::get, PRESENT))
        .as("LoadingCache.get")
        .isLessThanOrEqualTo(SLACK);
    assertThat(bytesPerCall(key -> map.computeIfAbsent(key, LOADER), PRESENT))
        .as("computeIfAbsent")
        .isLessThanOrEqualTo(SLACK);
  }
}
