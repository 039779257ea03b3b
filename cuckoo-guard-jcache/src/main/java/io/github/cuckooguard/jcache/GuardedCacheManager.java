package io.github.cuckooguard.jcache;

import io.github.cuckooguard.jcache.internal.CacheGuard;
import io.github.cuckooguard.jcache.internal.CaffeineRemovals;
import io.github.cuckooguard.jcache.internal.CreationConfiguration;
import io.github.cuckooguard.jcache.internal.DelegateProviders;
import io.github.cuckooguard.jcache.internal.EhcacheRemovals;
import io.github.cuckooguard.jcache.internal.GuardListener;
import io.github.cuckooguard.jcache.internal.Unwrapping;
import java.net.URI;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CacheManager} whose caches are {@link GuardedCache}s around the caches of a delegate
 * manager. Obtained from {@link GuardedCachingProvider}; every call not about guards is passed to
 * the delegate, so names, URIs, properties, management beans and events are the delegate's.
 *
 * <p>Each cache gets its own guard, configured from the manager's properties and the system
 * properties as described in {@link GuardSettings}. A cache created here ({@link #createCache}) on
 * a provider that keeps caches in this process (Caffeine, Ehcache) gets the guard's listener inside
 * its creation configuration, so the guard sees every entry from the first. Any other cache ({@link
 * #getCache} of a cache created by the provider's own configuration or by another process, any
 * cache of a distributed provider) is read once in the background first, during which its guard
 * answers "might be present" for every key; see {@link GuardedCache}.
 *
 * <p>{@code getCache} returns the same {@link GuardedCache} for a name until that cache is closed
 * or destroyed.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class GuardedCacheManager implements CacheManager {

  private final GuardedCachingProvider provider;
  private final CacheManager delegate;
  private final Properties properties;
  private final boolean createsLocalCaches;
  private final boolean eventsBeforeReturn;
  private final ConcurrentHashMap<String, GuardedCache<?, ?>> caches = new ConcurrentHashMap<>();

  GuardedCacheManager(
      GuardedCachingProvider provider,
      CacheManager delegate,
      Properties properties,
      boolean createsLocalCaches,
      boolean eventsBeforeReturn) {
    this.provider = provider;
    this.delegate = delegate;
    this.properties = properties;
    this.createsLocalCaches = createsLocalCaches;
    this.eventsBeforeReturn = eventsBeforeReturn;
  }

  /**
   * Creates the cache in the delegate manager, with a guard.
   *
   * @throws CacheException if a cache of that name exists
   * @throws IllegalArgumentException if the configuration, or a guard setting, is invalid
   * @throws IllegalStateException if this manager is closed
   * @throws NullPointerException if an argument is null
   */
  @Override
  @SuppressWarnings("unchecked")
  public <K, V, C extends Configuration<K, V>> Cache<K, V> createCache(
      String cacheName, C configuration) {
    Objects.requireNonNull(cacheName, "cacheName");
    Objects.requireNonNull(configuration, "configuration");
    requireOpen();
    return (Cache<K, V>)
        caches.compute(
            cacheName,
            (name, existing) -> {
              if (existing != null && !existing.isClosed()) {
                throw new CacheException("A cache named '" + name + "' already exists");
              }
              return create(name, configuration);
            });
  }

  private <K, V> GuardedCache<K, V> create(String name, Configuration<K, V> configuration) {
    CacheSettings settings = CacheSettings.resolve(name, properties, getClassLoader());
    CacheGuard<K> guard = settings.newGuard(name, eventsBeforeReturn);
    if (createsLocalCaches && DelegateProviders.isCaffeine(delegate.getCachingProvider())) {
      CaffeineRemovals.Creation<K, V> creation = CaffeineRemovals.prepare(configuration, guard);
      if (creation != null) {
        Cache<K, V> cache = delegate.createCache(name, creation.configuration());
        creation.attach(cache);
        return new GuardedCache<>(cache, guard, this);
      }
    }
    boolean ehcache =
        createsLocalCaches && DelegateProviders.isEhcache(delegate.getCachingProvider());
    if (createsLocalCaches) {
      CacheEntryListenerConfiguration<K, V> listener = GuardListener.configuration(guard);
      Configuration<K, V> withListener =
          CreationConfiguration.withListener(configuration, listener);
      if (withListener != null) {
        Cache<K, V> cache = delegate.createCache(name, withListener);
        GuardedCache.attach(cache, guard);
        if (ehcache && EhcacheRemovals.follow(cache, guard)) {
          // The store's own events now enter and leave every key, inside Ehcache's compute; the
          // Created listener would add a second copy per entry. Nothing used the cache yet.
          cache.deregisterCacheEntryListener(listener);
        }
        return new GuardedCache<>(cache, guard, this);
      }
    }
    Cache<K, V> cache = delegate.createCache(name, configuration);
    if (ehcache && EhcacheRemovals.follow(cache, guard)) {
      // Ehcache's own configuration (Eh107Configuration): new and empty, and its store's events
      // enter every key from the first, so no listener and no initial scan are needed.
      GuardedCache.attach(cache, guard);
      return new GuardedCache<>(cache, guard, this);
    }
    return GuardedCache.wrapExisting(cache, guard, this, settings.group());
  }

  /**
   * The guarded cache of that name, if the delegate has it.
   *
   * @throws ClassCastException if the types do not match the cache's configured types
   * @throws IllegalStateException if this manager is closed
   * @throws IllegalArgumentException if a guard setting is invalid
   */
  @Override
  public <K, V> @Nullable Cache<K, V> getCache(
      String cacheName, Class<K> keyType, Class<V> valueType) {
    return guarded(cacheName, delegate.getCache(cacheName, keyType, valueType));
  }

  /**
   * The guarded cache of that name, if the delegate has it.
   *
   * @throws IllegalStateException if this manager is closed
   * @throws IllegalArgumentException if a guard setting is invalid
   */
  @Override
  public <K, V> @Nullable Cache<K, V> getCache(String cacheName) {
    return guarded(cacheName, delegate.<K, V>getCache(cacheName));
  }

  @SuppressWarnings("unchecked")
  private <K, V> @Nullable Cache<K, V> guarded(String name, @Nullable Cache<K, V> cache) {
    if (cache == null) {
      caches.computeIfPresent(name, (n, existing) -> existing.isClosed() ? null : existing);
      return null;
    }
    return (Cache<K, V>)
        caches.compute(
            name,
            (n, existing) -> {
              if (existing != null && existing.delegate() == cache && !existing.isClosed()) {
                return existing;
              }
              if (existing != null) {
                existing.closeGuard(); // it leaves its group before the new guard joins
              }
              CacheSettings settings = CacheSettings.resolve(name, properties, getClassLoader());
              CacheGuard<K> guard = settings.newGuard(name, eventsBeforeReturn);
              return GuardedCache.wrapExisting(cache, guard, this, settings.group());
            });
  }

  /** The names of the delegate's caches. */
  @Override
  public Iterable<String> getCacheNames() {
    return delegate.getCacheNames();
  }

  @Override
  public void destroyCache(String cacheName) {
    // the guard first: no scan of the old cache may reach a new cache of the same name
    GuardedCache<?, ?> cache = caches.remove(cacheName);
    if (cache != null) {
      cache.closeGuard();
    }
    delegate.destroyCache(cacheName);
  }

  @Override
  public void enableManagement(String cacheName, boolean enabled) {
    delegate.enableManagement(cacheName, enabled);
  }

  /**
   * Switches statistics in the delegate, and tells the cache's guard, which then short-circuits
   * only lookups whose misses it can count in the provider's statistics (see {@link GuardedCache}).
   */
  @Override
  public void enableStatistics(String cacheName, boolean enabled) {
    delegate.enableStatistics(cacheName, enabled);
    GuardedCache<?, ?> cache = caches.get(cacheName);
    if (cache != null) {
      cache.statisticsEnabled(enabled);
    }
  }

  @Override
  public GuardedCachingProvider getCachingProvider() {
    return provider;
  }

  @Override
  public URI getURI() {
    return delegate.getURI();
  }

  @Override
  public @Nullable ClassLoader getClassLoader() {
    return delegate.getClassLoader();
  }

  @Override
  public Properties getProperties() {
    return delegate.getProperties();
  }

  @Override
  public void close() {
    try {
      caches.values().forEach(GuardedCache::closeGuard);
      delegate.close();
    } finally {
      caches.clear();
      provider.forget(this);
    }
  }

  @Override
  public boolean isClosed() {
    return delegate.isClosed();
  }

  /** This object if it is an instance of {@code clazz}, else what the delegate unwraps to. */
  @Override
  public <T> T unwrap(Class<T> clazz) {
    return Unwrapping.unwrap(this, clazz, delegate::unwrap);
  }

  @Override
  public String toString() {
    return "GuardedCacheManager[" + delegate + "]";
  }

  void forget(GuardedCache<?, ?> cache) {
    caches.remove(cache.getName(), cache);
  }

  private void requireOpen() {
    if (delegate.isClosed()) {
      throw new IllegalStateException("CacheManager " + delegate.getURI() + " is closed");
    }
  }
}
