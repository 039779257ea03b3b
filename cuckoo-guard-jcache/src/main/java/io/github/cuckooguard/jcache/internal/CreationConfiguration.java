package io.github.cuckooguard.jcache.internal;

import java.lang.reflect.Method;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * Copies a cache configuration and adds the guard's listener to the copy, so that the provider
 * registers the listener as part of creating the cache: no entry can be created before the guard
 * hears of it. The caller's configuration object is never modified.
 *
 * <p>A {@link MutableConfiguration} is copied as one. Another {@link CompleteConfiguration} (e.g.
 * Caffeine's {@code CaffeineConfiguration}, Hazelcast's {@code CacheConfig}) is copied with its own
 * public copy constructor taking a {@code CompleteConfiguration} and extended with its public
 * {@code addCacheEntryListenerConfiguration} method, the convention those classes share with {@code
 * MutableConfiguration}, so provider-specific settings survive. Anything else (a bare {@link
 * Configuration}, which may carry provider settings the copy would lose, such as Ehcache's {@code
 * Eh107Configuration}) returns null: the caller then creates the cache as given and registers the
 * listener afterwards.
 */
public final class CreationConfiguration {

  private CreationConfiguration() {}

  /** The copy with {@code listener} added, or null if the configuration type cannot be copied. */
  @SuppressWarnings("unchecked")
  public static <K, V> @Nullable Configuration<K, V> withListener(
      Configuration<K, V> config, CacheEntryListenerConfiguration<K, V> listener) {
    if (config.getClass() == MutableConfiguration.class) {
      return new MutableConfiguration<>((CompleteConfiguration<K, V>) config)
          .addCacheEntryListenerConfiguration(listener);
    }
    if (!(config instanceof CompleteConfiguration)) {
      return null;
    }
    try {
      Object copy =
          config.getClass().getConstructor(CompleteConfiguration.class).newInstance(config);
      Method add =
          copy.getClass()
              .getMethod(
                  "addCacheEntryListenerConfiguration", CacheEntryListenerConfiguration.class);
      add.invoke(copy, listener);
      return (Configuration<K, V>) copy;
    } catch (ReflectiveOperationException | ClassCastException e) {
      return null;
    }
  }
}
