package io.github.cuckooguard.boot;

import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.github.cuckooguard.jcache.GuardedCachingProvider;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.cache.CacheManagerCustomizer;
import org.springframework.boot.autoconfigure.cache.JCachePropertiesCustomizer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Binds {@code cuckooguard.cache.<name>.*} from the {@code Environment} to the caches of Boot's
 * cache auto-configuration: passed to a JCache cache manager as its properties (read by
 * cuckoo-guard-jcache's {@code GuardedCachingProvider}), or used to build guarded Caffeine caches
 * in Spring's {@code CaffeineCacheManager}. The settings are checked when the customizer is
 * created, before the cache manager exists.
 */
@AutoConfiguration(
    beforeName = "org.springframework.boot.autoconfigure.cache.CacheAutoConfiguration")
@ConditionalOnClass(CacheManagerCustomizer.class)
@ConditionalOnProperty(
    prefix = CuckooGuardProperties.PREFIX,
    name = "enabled",
    matchIfMissing = true)
@EnableConfigurationProperties(CuckooGuardProperties.class)
public class Boot3CacheAutoConfiguration {

  /** JCache: the settings as cache manager properties. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({GuardedCachingProvider.class, JCachePropertiesCustomizer.class})
  static class JCache {

    @Bean
    JCachePropertiesCustomizer cuckooGuardJCacheProperties(CuckooGuardProperties properties) {
      CacheGuardSettings settings = new CacheGuardSettings(properties);
      return settings::addTo;
    }
  }

  /** Spring's CaffeineCacheManager: a guarded cache per named cache. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({CaffeineGuard.class, CaffeineCacheManager.class})
  static class Caffeine {

    @Bean
    CaffeineCacheGuards cuckooGuardCaffeineCacheGuards() {
      return new CaffeineCacheGuards();
    }

    @Bean
    CaffeineCustomizer cuckooGuardCaffeineCaches(
        CuckooGuardProperties properties, CaffeineCacheGuards guards, Environment environment) {
      return new CaffeineCustomizer(
          new CacheGuardSettings(properties),
          guards,
          environment.getProperty("spring.cache.caffeine.spec"));
    }
  }

  /** A class, not a lambda, so that Boot can match its generic type to the cache manager. */
  static final class CaffeineCustomizer
      implements CacheManagerCustomizer<CaffeineCacheManager>, BeanClassLoaderAware {
    private final CacheGuardSettings settings;
    private final CaffeineCacheGuards guards;
    private final @org.jspecify.annotations.Nullable String spec;
    private @org.jspecify.annotations.Nullable ClassLoader classLoader;

    CaffeineCustomizer(
        CacheGuardSettings settings,
        CaffeineCacheGuards guards,
        @org.jspecify.annotations.Nullable String spec) {
      this.settings = settings;
      this.guards = guards;
      this.spec = spec;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
      this.classLoader = classLoader;
    }

    @Override
    public void customize(CaffeineCacheManager cacheManager) {
      guards.register(cacheManager, settings, spec, classLoader);
    }
  }
}
