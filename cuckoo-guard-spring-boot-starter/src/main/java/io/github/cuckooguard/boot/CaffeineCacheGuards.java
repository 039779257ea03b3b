package io.github.cuckooguard.boot;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.caffeine.CaffeineCacheManager;

/**
 * The guards of the Caffeine caches that the starter registers in Spring's {@code
 * CaffeineCacheManager}, one per cache named under {@code cuckooguard.cache.}. Each cache is built
 * from {@code spring.cache.caffeine.spec} (a fresh builder per cache) through
 * cuckoo-guard-caffeine's {@link CaffeineGuard#wrap}, so every write of Spring's cache abstraction
 * ({@code put}, {@code putIfAbsent}, {@code get(key, loader)}, {@code evict}, {@code clear}) goes
 * through the guarded cache, whose write paths all keep the filter exact, and a definite miss of
 * {@code get} skips the cache. Thread-safe.
 */
public final class CaffeineCacheGuards {

  private final Map<String, CaffeineGuard<Object, Object>> guards = new ConcurrentHashMap<>();

  /** The guard of the cache named {@code cacheName}, or null if the starter did not guard it. */
  public @Nullable CaffeineGuard<Object, Object> guard(String cacheName) {
    return guards.get(cacheName);
  }

  /** The guards by cache name. */
  public Map<String, CaffeineGuard<Object, Object>> guards() {
    return Map.copyOf(guards);
  }

  /** Builds and registers a guarded cache in {@code manager} for every cache with settings. */
  void register(
      CaffeineCacheManager manager,
      CacheGuardSettings settings,
      @Nullable String caffeineSpec,
      @Nullable ClassLoader classLoader) {
    for (String name : settings.cacheNames()) {
      CaffeineGuard<Object, Object> guard =
          CaffeineGuard.newBuilder(settings.funnel(name, classLoader))
              .spec(settings.spec(name))
              .name("caffeine:" + name)
              .build();
      Caffeine<Object, Object> builder =
          caffeineSpec == null || caffeineSpec.isBlank()
              ? Caffeine.newBuilder()
              : Caffeine.from(caffeineSpec);
      manager.registerCustomCache(name, guard.wrap(builder));
      guards.put(name, guard);
    }
  }
}
