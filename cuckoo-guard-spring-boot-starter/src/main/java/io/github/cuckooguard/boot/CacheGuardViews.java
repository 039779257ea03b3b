package io.github.cuckooguard.boot;

import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.github.cuckooguard.jcache.GuardedCache;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.util.ClassUtils;

/**
 * The guards of the caches of the context's Spring {@code CacheManager} beans as {@link
 * GuardView}s: a cache whose native cache is a cuckoo-guard-jcache {@code GuardedCache}, or one of
 * the Caffeine caches that {@link CaffeineCacheGuards} registered. Only the caches a manager has
 * when the catalog is first read are listed ({@code getCacheNames()}; no cache is created here).
 */
final class CacheGuardViews {

  private static final @Nullable ClassLoader LOADER = CacheGuardViews.class.getClassLoader();
  private static final boolean JCACHE =
      ClassUtils.isPresent("io.github.cuckooguard.jcache.GuardedCache", LOADER)
          && ClassUtils.isPresent("javax.cache.Cache", LOADER);
  private static final boolean CAFFEINE =
      ClassUtils.isPresent("io.github.cuckooguard.caffeine.CaffeineGuard", LOADER)
          && ClassUtils.isPresent(
              "org.springframework.cache.caffeine.CaffeineCacheManager", LOADER);

  private CacheGuardViews() {}

  static void collect(ListableBeanFactory beanFactory, Map<String, GuardView> into) {
    Map<Object, Boolean> seen = new IdentityHashMap<>();
    Map<Object, CaffeineCacheGuards.Guarded> caffeine =
        CAFFEINE ? Caffeine.byNativeCache(beanFactory) : Map.of();
    beanFactory
        .getBeansOfType(CacheManager.class, false, false)
        .forEach(
            (beanName, manager) -> {
              for (String cacheName : manager.getCacheNames()) {
                Cache cache = manager.getCache(cacheName);
                Object nativeCache = cache == null ? null : cache.getNativeCache();
                if (nativeCache == null || seen.put(nativeCache, Boolean.TRUE) != null) {
                  continue;
                }
                String name = into.containsKey(cacheName) ? beanName + ":" + cacheName : cacheName;
                Map<String, String> tags = tags(cacheName, beanName);
                GuardView view = JCACHE ? JCache.view(name, tags, nativeCache) : null;
                CaffeineCacheGuards.Guarded guarded = caffeine.get(nativeCache);
                if (view == null && guarded != null) {
                  view = Caffeine.view(name, tags, guarded);
                }
                if (view != null) {
                  into.putIfAbsent(name, view);
                }
              }
            });
  }

  /**
   * The tags of Boot's cache meters ({@code CacheMetricsRegistrar}): {@code cache} and {@code
   * cache.manager}, the bean name without a trailing "CacheManager".
   */
  private static Map<String, String> tags(String cacheName, String beanName) {
    String manager = beanName;
    if (beanName.length() > 12 && beanName.toLowerCase(Locale.ROOT).endsWith("cachemanager")) {
      manager = beanName.substring(0, beanName.length() - 12);
    }
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("cache", cacheName);
    tags.put("cache.manager", manager);
    return Map.copyOf(tags);
  }

  /** cuckoo-guard-jcache's caches; loaded only when it is present. */
  private static final class JCache {

    private JCache() {}

    /**
     * The view of a {@code GuardedCache}, or null. Its configured fpp is not readable from the
     * cache (it can come from system properties too), so no expected fpp is reported.
     */
    static @Nullable GuardView view(String name, Map<String, String> tags, Object nativeCache) {
      if (!(nativeCache instanceof GuardedCache<?, ?> cache)) {
        return null;
      }
      return new DelegatingGuardView(
          name,
          GuardView.Kind.CACHE,
          tags,
          Double.NaN,
          cache::stats,
          cache::rebuild,
          cache::markStale);
    }
  }

  /** The caches {@link CaffeineCacheGuards} guards; loaded only when cuckoo-guard-caffeine is. */
  private static final class Caffeine {

    private Caffeine() {}

    static Map<Object, CaffeineCacheGuards.Guarded> byNativeCache(ListableBeanFactory beanFactory) {
      Map<Object, CaffeineCacheGuards.Guarded> byCache = new IdentityHashMap<>();
      for (CaffeineCacheGuards guards :
          beanFactory.getBeansOfType(CaffeineCacheGuards.class, false, false).values()) {
        guards.guarded().values().forEach(g -> byCache.put(g.cache(), g));
      }
      return byCache;
    }

    /** The view of a Caffeine cache the starter built, with the settings it was built with. */
    static GuardView view(String name, Map<String, String> tags, CaffeineCacheGuards.Guarded g) {
      CaffeineGuard<Object, Object> guard = g.guard();
      return new DelegatingGuardView(
          name,
          GuardView.Kind.CACHE,
          tags,
          g.spec().targetFpp(),
          guard::stats,
          guard::rebuild,
          guard::markStale);
    }
  }
}
