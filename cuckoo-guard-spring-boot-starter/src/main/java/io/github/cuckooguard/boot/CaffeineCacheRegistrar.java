package io.github.cuckooguard.boot;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.core.env.Environment;

/**
 * Registers the guarded caches of {@link CaffeineCacheGuards} in a {@code CaffeineCacheManager};
 * the cache auto-configuration of each Boot line makes it Boot's {@code CacheManagerCustomizer}
 * (whose package moved in Boot 4). The settings are checked when this object is made, before the
 * cache manager exists.
 */
class CaffeineCacheRegistrar implements BeanClassLoaderAware {

  private final CacheGuardSettings settings;
  private final CaffeineCacheGuards guards;
  private final @Nullable String spec;
  private final boolean dynamic;
  private @Nullable ClassLoader classLoader;

  CaffeineCacheRegistrar(
      CuckooGuardProperties properties, CaffeineCacheGuards guards, Environment environment) {
    this.settings = new CacheGuardSettings(properties);
    this.guards = guards;
    this.spec = environment.getProperty("spring.cache.caffeine.spec");
    // Boot's CaffeineCacheManager gets fixed names (and stops making caches) only from this
    // (a comma-separated value or a YAML list)
    this.dynamic =
        Binder.get(environment)
            .bind("spring.cache.cache-names", Bindable.listOf(String.class))
            .map(List::isEmpty)
            .orElse(true);
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  /** Registers the guarded caches in {@code cacheManager}. */
  public void customize(CaffeineCacheManager cacheManager) {
    guards.register(cacheManager, settings, spec, dynamic, classLoader);
  }
}
