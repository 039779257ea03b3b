package io.github.cuckooguard.boot;

import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.github.cuckooguard.jcache.GuardedCachingProvider;
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
 * in Spring's {@code CaffeineCacheManager} ({@link CaffeineCacheGuards}). The settings are checked
 * when the customizer is created, before the cache manager exists.
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
      return new CacheGuardSettings(properties)::addTo;
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
    Customizer cuckooGuardCaffeineCaches(
        CuckooGuardProperties properties, CaffeineCacheGuards guards, Environment environment) {
      return new Customizer(properties, guards, environment);
    }
  }

  /** A class, not a lambda, so that Boot can match its generic type to the cache manager. */
  static final class Customizer extends CaffeineCacheRegistrar
      implements CacheManagerCustomizer<CaffeineCacheManager> {

    Customizer(
        CuckooGuardProperties properties, CaffeineCacheGuards guards, Environment environment) {
      super(properties, guards, environment);
    }
  }
}
