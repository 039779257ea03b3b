package io.github.cuckooguard.boot;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.caffeine.CaffeineCacheManager;

/**
 * The guards of the Caffeine caches that the starter registers in Spring's {@code
 * CaffeineCacheManager}, one per cache named under {@code cuckooguard.cache.}. Each cache is built
 * from {@code spring.cache.caffeine.spec} (a fresh builder per cache) through
 * cuckoo-guard-caffeine's {@link CaffeineGuard#wrap}, so every write of Spring's cache abstraction
 * ({@code put}, {@code putIfAbsent}, {@code get(key, loader)}, {@code evict}, {@code clear}) goes
 * through the guarded cache, whose write paths all keep the filter exact, and a definite miss of
 * {@code get} skips the cache.
 *
 * <p>Only the caches named under {@code cuckooguard.cache.} are guarded. They are registered when
 * the manager is made, so they exist from the start whether or not {@code spring.cache.cache-names}
 * lists them. A cache that a manager without {@code spring.cache.cache-names} creates on the fly
 * for another name is a plain Caffeine cache (correct, but not filtered); the start logs a WARN
 * naming the guarded caches when the manager is of that kind. Thread-safe.
 */
public final class CaffeineCacheGuards {

  static final String DYNAMIC_WARNING =
      "CaffeineCacheManager creates caches on the fly (spring.cache.cache-names is not set): the"
          + " caches %s are guarded (cuckooguard.cache.<name>.*), but a cache it creates for any other"
          + " name is a plain Caffeine cache without a guard. Give every cache that should be guarded"
          + " settings under cuckooguard.cache.<name>, and list the cache names in"
          + " spring.cache.cache-names to stop caches being made on the fly.";

  private static final Log LOG = LogFactory.getLog(CaffeineCacheGuards.class);

  /** A guarded cache: its guard, the settings it was built with, and the guarded native cache. */
  record Guarded(
      CaffeineGuard<Object, Object> guard, GuardSpec spec, Cache<Object, Object> cache) {}

  private final Map<String, Guarded> guarded = new ConcurrentHashMap<>();

  /** The guard of the cache named {@code cacheName}, or null if the starter did not guard it. */
  public @Nullable CaffeineGuard<Object, Object> guard(String cacheName) {
    Guarded g = guarded.get(cacheName);
    return g == null ? null : g.guard();
  }

  /** The guards by cache name. */
  public Map<String, CaffeineGuard<Object, Object>> guards() {
    Map<String, CaffeineGuard<Object, Object>> all = new LinkedHashMap<>();
    guarded.forEach((name, g) -> all.put(name, g.guard()));
    return Map.copyOf(all);
  }

  /** The guarded caches by cache name. */
  Map<String, Guarded> guarded() {
    return Map.copyOf(guarded);
  }

  /**
   * Builds and registers a guarded cache in {@code manager} for every cache with settings; warns
   * once if {@code dynamic} (the manager makes other caches on the fly, unguarded).
   */
  void register(
      CaffeineCacheManager manager,
      CacheGuardSettings settings,
      @Nullable String caffeineSpec,
      boolean dynamic,
      @Nullable ClassLoader classLoader) {
    for (String name : settings.cacheNames()) {
      GuardSpec spec = settings.spec(name);
      CaffeineGuard<Object, Object> guard =
          CaffeineGuard.newBuilder(settings.funnel(name, classLoader))
              .spec(spec)
              .name("caffeine:" + name)
              .build();
      Caffeine<Object, Object> builder =
          caffeineSpec == null || caffeineSpec.isBlank()
              ? Caffeine.newBuilder()
              : Caffeine.from(caffeineSpec);
      Cache<Object, Object> cache = guard.wrap(builder);
      manager.registerCustomCache(name, cache);
      guarded.put(name, new Guarded(guard, spec, cache));
    }
    if (dynamic && !settings.cacheNames().isEmpty()) {
      LOG.warn(String.format(DYNAMIC_WARNING, new java.util.TreeSet<>(settings.cacheNames())));
    }
  }
}
