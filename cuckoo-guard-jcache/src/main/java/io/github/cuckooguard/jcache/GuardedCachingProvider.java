package io.github.cuckooguard.jcache;

import io.github.cuckooguard.jcache.internal.DelegateProviders;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.OptionalFeature;
import javax.cache.spi.CachingProvider;
import org.jspecify.annotations.Nullable;

/**
 * A JSR-107 {@link CachingProvider} that wraps another provider and guards every cache it hands out
 * ({@link GuardedCacheManager}, {@link GuardedCache}), so that a whole application's caches are
 * guarded by configuration, without code changes. Select it by class name:
 *
 * <ul>
 *   <li>JVM-wide: {@code
 *       -Djavax.cache.spi.CachingProvider=io.github.cuckooguard.jcache.GuardedCachingProvider}
 *       (then {@code Caching.getCachingProvider()} returns it);
 *   <li>explicitly: {@code
 *       Caching.getCachingProvider("io.github.cuckooguard.jcache.GuardedCachingProvider")};
 *   <li>Hibernate: {@code
 *       hibernate.javax.cache.provider=io.github.cuckooguard.jcache.GuardedCachingProvider};
 *   <li>Spring: a {@code JCacheCacheManager} around {@code
 *       Caching.getCachingProvider("io.github.cuckooguard.jcache.GuardedCachingProvider").getCacheManager()}.
 * </ul>
 *
 * <p>The provider it wraps is, in this order: the one given to {@link
 * #GuardedCachingProvider(CachingProvider)}; the class named by the system property {@value
 * GuardSettings#DELEGATE}; the single other provider registered in {@code
 * META-INF/services/javax.cache.spi.CachingProvider}. This provider is deliberately <em>not</em>
 * registered there itself: two registered providers would make the no-argument {@code
 * Caching.getCachingProvider()} fail with "Multiple CachingProviders have been configured".
 *
 * <p>Guard settings (expected insertions, fpp, funnel, …, per cache or for all) come from the
 * properties passed to {@link #getCacheManager(URI, ClassLoader, Properties)} and from system
 * properties; see {@link GuardSettings}. URIs, class loaders, default properties and optional
 * features are the wrapped provider's. One {@link GuardedCacheManager} exists per URI and class
 * loader until it is closed.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class GuardedCachingProvider implements CachingProvider {

  private record ManagerKey(URI uri, ClassLoader classLoader) {}

  private final CachingProvider delegate;
  private final boolean createsLocalCaches;
  private final boolean eventsBeforeReturn;
  private final Map<ManagerKey, GuardedCacheManager> managers = new HashMap<>();

  /**
   * A provider wrapping the one named by the system property {@value GuardSettings#DELEGATE}, or
   * else the single other provider registered on the class path. This is the constructor {@link
   * javax.cache.Caching} calls.
   *
   * <p>This provider makes its own instance of the wrapped provider rather than asking {@link
   * javax.cache.Caching} for the shared one: {@code Caching} would add it to the providers it knows
   * for the class loader, and the no-argument {@code Caching.getCachingProvider()} would then fail
   * with "Multiple CachingProviders". Caches are therefore not shared with code that obtains the
   * wrapped provider from {@code Caching} directly.
   *
   * @throws CacheException if there is no such provider, or several and the property is unset; the
   *     message says what to set
   */
  public GuardedCachingProvider() {
    this(DelegateProviders.instantiate(GuardedCachingProvider.class, defaultLoader()));
  }

  /**
   * A provider wrapping {@code delegate}, e.g. a {@code HazelcastMemberCachingProvider} bound to
   * one member.
   *
   * @throws NullPointerException if {@code delegate} is null
   * @throws IllegalArgumentException if {@code delegate} is itself a guarded provider
   */
  public GuardedCachingProvider(CachingProvider delegate) {
    Objects.requireNonNull(delegate, "delegate");
    if (delegate instanceof GuardedCachingProvider) {
      throw new IllegalArgumentException(
          "the delegate is already a GuardedCachingProvider; wrap the provider"
              + " it wraps instead");
    }
    this.delegate = delegate;
    this.createsLocalCaches = DelegateProviders.createsLocalCaches(delegate);
    this.eventsBeforeReturn = DelegateProviders.eventsBeforeReturn(delegate);
  }

  private static ClassLoader defaultLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : GuardedCachingProvider.class.getClassLoader();
  }

  /** The wrapped provider. */
  public CachingProvider delegate() {
    return delegate;
  }

  /**
   * The guarded manager for {@code uri} and {@code classLoader}, created around the delegate's
   * manager if there is none or it was closed. {@code properties} are passed to the delegate and
   * also hold guard settings ({@link GuardSettings}); they are ignored if the manager exists.
   *
   * @param uri null for {@link #getDefaultURI()}
   * @param classLoader null for {@link #getDefaultClassLoader()}
   * @param properties null for {@link #getDefaultProperties()}
   */
  @Override
  public synchronized GuardedCacheManager getCacheManager(
      @Nullable URI uri, @Nullable ClassLoader classLoader, @Nullable Properties properties) {
    URI managerUri = uri != null ? uri : getDefaultURI();
    ClassLoader loader = classLoader != null ? classLoader : getDefaultClassLoader();
    ManagerKey key = new ManagerKey(managerUri, loader);
    GuardedCacheManager existing = managers.get(key);
    if (existing != null && !existing.isClosed()) {
      return existing;
    }
    Properties props = properties != null ? properties : getDefaultProperties();
    CacheManager manager = delegate.getCacheManager(managerUri, loader, props);
    GuardedCacheManager guarded =
        new GuardedCacheManager(this, manager, props, createsLocalCaches, eventsBeforeReturn);
    managers.put(key, guarded);
    return guarded;
  }

  @Override
  public GuardedCacheManager getCacheManager(@Nullable URI uri, @Nullable ClassLoader classLoader) {
    return getCacheManager(uri, classLoader, getDefaultProperties());
  }

  @Override
  public GuardedCacheManager getCacheManager() {
    return getCacheManager(getDefaultURI(), getDefaultClassLoader());
  }

  @Override
  public ClassLoader getDefaultClassLoader() {
    return delegate.getDefaultClassLoader();
  }

  @Override
  public URI getDefaultURI() {
    return delegate.getDefaultURI();
  }

  /**
   * The wrapped provider's default properties; empty properties if it has none (Hazelcast's
   * providers return null).
   */
  @Override
  public Properties getDefaultProperties() {
    Properties defaults = delegate.getDefaultProperties();
    return defaults != null ? defaults : new Properties();
  }

  /** Closes every manager this provider handed out; the wrapped provider stays usable. */
  @Override
  public void close() {
    closeMatching(null, null);
  }

  @Override
  public void close(ClassLoader classLoader) {
    closeMatching(null, classLoader != null ? classLoader : getDefaultClassLoader());
  }

  @Override
  public void close(URI uri, ClassLoader classLoader) {
    closeMatching(
        uri != null ? uri : getDefaultURI(),
        classLoader != null ? classLoader : getDefaultClassLoader());
  }

  private void closeMatching(@Nullable URI uri, @Nullable ClassLoader classLoader) {
    List<GuardedCacheManager> toClose = new ArrayList<>();
    synchronized (this) {
      managers.forEach(
          (key, manager) -> {
            if ((uri == null || key.uri().equals(uri))
                && (classLoader == null || key.classLoader() == classLoader)) {
              toClose.add(manager);
            }
          });
    }
    toClose.forEach(GuardedCacheManager::close);
  }

  synchronized void forget(GuardedCacheManager manager) {
    managers.values().remove(manager);
  }

  @Override
  public boolean isSupported(OptionalFeature optionalFeature) {
    return delegate.isSupported(optionalFeature);
  }

  @Override
  public String toString() {
    return "GuardedCachingProvider[" + delegate + "]";
  }
}
