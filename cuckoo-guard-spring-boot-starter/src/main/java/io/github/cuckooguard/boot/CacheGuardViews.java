package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.github.cuckooguard.jcache.GuardedCache;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
    Map<Object, GuardView> caffeine = CAFFEINE ? Caffeine.byNativeCache(beanFactory) : Map.of();
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
                Map<String, String> tags = tags(cacheName, beanName);
                GuardView view = null;
                if (JCACHE) {
                  view = JCache.view(nativeCache, tags);
                }
                GuardView caffeineGuard = caffeine.get(nativeCache);
                if (view == null && caffeineGuard != null) {
                  view = new Named(caffeineGuard, tags);
                }
                if (view != null) {
                  String name =
                      into.containsKey(cacheName) ? beanName + ":" + cacheName : cacheName;
                  into.putIfAbsent(name, new Named(view, tags, name));
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

  /** A cache guard's view under its catalog name, with its tags. */
  private record Named(GuardView view, Map<String, String> tags, String name) implements GuardView {

    Named(GuardView view, Map<String, String> tags) {
      this(view, tags, view.name());
    }

    @Override
    public Kind kind() {
      return Kind.CACHE;
    }

    @Override
    public GuardStats stats() {
      return view.stats();
    }

    @Override
    public double expectedFpp() {
      return view.expectedFpp();
    }

    @Override
    public CompletableFuture<Void> rebuild() {
      return view.rebuild();
    }

    @Override
    public void markStale(String reason) {
      view.markStale(reason);
    }
  }

  /** cuckoo-guard-jcache's caches; loaded only when it is present. */
  private static final class JCache {

    private JCache() {}

    static @Nullable GuardView view(Object nativeCache, Map<String, String> tags) {
      if (!(nativeCache instanceof GuardedCache<?, ?> guarded)) {
        return null;
      }
      @SuppressWarnings("unchecked")
      GuardedCache<Object, Object> cache = (GuardedCache<Object, Object>) guarded;
      return new JCacheGuard(cache.getName(), cache);
    }
  }

  /**
   * The guard of a JCache cache. Its configured fpp is not readable from the cache (it can come
   * from system properties too), so no expected fpp is reported.
   */
  private record JCacheGuard(String name, GuardedCache<Object, Object> cache) implements GuardView {

    @Override
    public Kind kind() {
      return Kind.CACHE;
    }

    @Override
    public GuardStats stats() {
      return cache.stats();
    }

    @Override
    public double expectedFpp() {
      return Double.NaN;
    }

    @Override
    public CompletableFuture<Void> rebuild() {
      return cache.rebuild();
    }

    @Override
    public void markStale(String reason) {
      cache.markStale(reason);
    }
  }

  /** The caches {@link CaffeineCacheGuards} guards; loaded only when cuckoo-guard-caffeine is. */
  private static final class Caffeine {

    private Caffeine() {}

    static Map<Object, GuardView> byNativeCache(ListableBeanFactory beanFactory) {
      Map<Object, GuardView> views = new IdentityHashMap<>();
      for (CaffeineCacheGuards guards :
          beanFactory.getBeansOfType(CaffeineCacheGuards.class, false, false).values()) {
        guards
            .guarded()
            .forEach(
                (name, g) ->
                    views.put(g.cache(), new CaffeineCacheGuard(name, g.guard(), g.spec())));
      }
      return views;
    }
  }

  /** The guard of a Caffeine cache the starter built, with the settings it was built with. */
  private record CaffeineCacheGuard(
      String name, CaffeineGuard<Object, Object> guard, GuardSpec spec) implements GuardView {

    @Override
    public Kind kind() {
      return Kind.CACHE;
    }

    @Override
    public GuardStats stats() {
      return guard.stats();
    }

    @Override
    public double expectedFpp() {
      return spec.targetFpp();
    }

    @Override
    public CompletableFuture<Void> rebuild() {
      return guard.rebuild();
    }

    @Override
    public void markStale(String reason) {
      guard.markStale(reason);
    }
  }
}
