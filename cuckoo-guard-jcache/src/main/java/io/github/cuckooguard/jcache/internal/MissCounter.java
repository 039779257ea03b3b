package io.github.cuckooguard.jcache.internal;

import java.lang.reflect.Field;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * Counts the misses of lookups the guard answered without the provider into the provider's own
 * JCache statistics, so that statistics stay true while the guard short-circuits: a skipped {@code
 * get} is a miss, exactly as the provider would have counted it. Known only for Caffeine's provider
 * ({@code CacheProxy}'s {@code JCacheStatisticsMXBean}, whose {@code recordMisses} counts only
 * while statistics are enabled); for other providers there is none, and their guarded caches do not
 * short-circuit counted lookups while statistics are on.
 */
public final class MissCounter {

  private final Object statistics;

  private MissCounter(Object statistics) {
    this.statistics = statistics;
  }

  /** The counter of {@code cache}'s provider statistics, or null if the adapter knows none. */
  public static @Nullable MissCounter of(Cache<?, ?> cache) {
    if (!cache.getClass().getName().startsWith("com.github.benmanes.caffeine.jcache.")) {
      return null;
    }
    try {
      Class<?> proxy =
          Class.forName(
              "com.github.benmanes.caffeine.jcache.CacheProxy",
              false,
              cache.getClass().getClassLoader());
      if (!proxy.isInstance(cache)) {
        return null;
      }
      Field field = proxy.getDeclaredField("statistics");
      field.setAccessible(true);
      Object statistics = field.get(cache);
      return statistics != null ? CaffeineMisses.check(statistics) : null;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }

  /** Records {@code count} misses (nothing while the provider's statistics are disabled). */
  public void misses(long count) {
    if (count > 0) {
      CaffeineMisses.record(statistics, count);
    }
  }

  /** The Caffeine-typed half, loaded only for Caffeine's provider. */
  private static final class CaffeineMisses {
    static @Nullable MissCounter check(Object statistics) {
      return statistics
              instanceof com.github.benmanes.caffeine.jcache.management.JCacheStatisticsMXBean
          ? new MissCounter(statistics)
          : null;
    }

    static void record(Object statistics, long count) {
      ((com.github.benmanes.caffeine.jcache.management.JCacheStatisticsMXBean) statistics)
          .recordMisses(count);
    }
  }
}
