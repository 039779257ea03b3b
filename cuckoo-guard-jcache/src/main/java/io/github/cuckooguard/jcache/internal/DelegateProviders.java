package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.jcache.GuardSettings;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import javax.cache.CacheException;
import javax.cache.spi.CachingProvider;
import org.jspecify.annotations.Nullable;

/**
 * Finds the provider a guarded provider wraps, and knows which providers deliver every event of a
 * cache, from its creation on, in this process, and in time.
 */
public final class DelegateProviders {

  /**
   * Providers whose {@code createCache} makes a new, empty cache in this process and registers the
   * listeners of the creation configuration before the cache can be used: a guard whose listener is
   * part of that configuration sees every entry from the first and needs no initial scan. Not
   * listed: distributed providers (a Hazelcast member's {@code createCache} returns the cluster's
   * cache, which other members may have filled, and registers listeners only afterwards).
   */
  private static final Set<String> LOCAL_PROVIDERS =
      Set.of(
          "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider",
          "org.ehcache.jsr107.EhcacheCachingProvider",
          "org.jsr107.ri.spi.RICachingProvider");

  /**
   * Providers that make every creation of their caches in this process and run synchronous
   * listeners before the creating call returns (Caffeine's {@code CacheProxy} awaits them in every
   * write; its {@code loadAll} reports completion before, which the guarded cache allows for). Not
   * listed: Ehcache 3, whose ordered dispatch can let a write return before its own synchronous
   * events ran, and distributed providers, where other members' creations arrive asynchronously.
   * See {@link CacheGuard} for what the guarded cache does differently for these.
   */
  private static final Set<String> EVENTS_BEFORE_RETURN =
      Set.of(
          "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider",
          "org.jsr107.ri.spi.RICachingProvider");

  private DelegateProviders() {}

  /**
   * Whether {@code provider} is Caffeine's, whose caches created by the guarded manager follow
   * removals ({@link CaffeineRemovals}); a class-name check that loads no Caffeine class.
   */
  public static boolean isCaffeine(@Nullable CachingProvider provider) {
    return provider != null
        && provider
            .getClass()
            .getName()
            .equals("com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider");
  }

  /**
   * Whether {@code provider} is Ehcache 3's, whose heap-only caches created by the guarded manager
   * follow removals ({@link EhcacheRemovals}); a class-name check that loads no Ehcache class.
   */
  public static boolean isEhcache(@Nullable CachingProvider provider) {
    return provider != null
        && provider.getClass().getName().equals("org.ehcache.jsr107.EhcacheCachingProvider");
  }

  /**
   * Whether {@code provider}'s creations all report their Created event before the call returns.
   */
  public static boolean eventsBeforeReturn(@Nullable CachingProvider provider) {
    return provider != null && EVENTS_BEFORE_RETURN.contains(provider.getClass().getName());
  }

  /**
   * {@link #eventsBeforeReturn(CachingProvider)} for the provider of {@code cache}, if it can be
   * told.
   */
  public static boolean eventsBeforeReturn(javax.cache.Cache<?, ?> cache) {
    try {
      javax.cache.CacheManager manager = cache.getCacheManager();
      return manager != null && eventsBeforeReturn(manager.getCachingProvider());
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether a creation-time listener of a cache {@code provider} creates sees every entry of it.
   */
  public static boolean createsLocalCaches(CachingProvider provider) {
    return LOCAL_PROVIDERS.contains(provider.getClass().getName());
  }

  /**
   * A new instance of the provider named by the system property {@value GuardSettings#DELEGATE},
   * else of the single provider other than {@code self} registered in {@code META-INF/services},
   * loaded by {@code classLoader}. Not the instance {@link javax.cache.Caching} shares: asking
   * {@code Caching} for it would register it next to {@code self} for the class loader, and {@code
   * Caching.getCachingProvider()} would then find two providers.
   *
   * @throws CacheException if no provider, or more than one, qualifies, or the named one cannot be
   *     loaded; the message says what to set
   */
  public static CachingProvider instantiate(
      Class<? extends CachingProvider> self, @Nullable ClassLoader classLoader) {
    String name = System.getProperty(GuardSettings.DELEGATE);
    if (name == null || name.isBlank()) {
      List<String> candidates =
          ServiceLoader.load(CachingProvider.class, classLoader).stream()
              .map(provider -> provider.type().getName())
              .filter(candidate -> !candidate.equals(self.getName()))
              .distinct()
              .toList();
      if (candidates.size() != 1) {
        throw new CacheException(
            self.getSimpleName()
                + " wraps another JCache provider, but "
                + (candidates.isEmpty()
                    ? "none is on the class path"
                    : "there are " + candidates.size() + ": " + candidates)
                + "; set the system property "
                + GuardSettings.DELEGATE
                + " to the class name of the one to wrap,"
                + " or construct "
                + self.getSimpleName()
                + " with a provider instance");
      }
      name = candidates.get(0);
    }
    name = name.trim();
    if (name.equals(self.getName())) {
      throw new CacheException(
          GuardSettings.DELEGATE
              + " ("
              + name
              + ") names the guarded provider itself;"
              + " set it to the provider to wrap, e.g. com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider");
    }
    try {
      Class<?> type = Class.forName(name, true, classLoader);
      if (!CachingProvider.class.isAssignableFrom(type)) {
        throw new CacheException(
            GuardSettings.DELEGATE + " (" + name + ") is not a " + CachingProvider.class.getName());
      }
      return (CachingProvider) type.getConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new CacheException(
          "The provider to wrap ("
              + name
              + ", from "
              + GuardSettings.DELEGATE
              + " or"
              + " META-INF/services) could not be instantiated with its public no-argument constructor: "
              + e,
          e);
    }
  }
}
