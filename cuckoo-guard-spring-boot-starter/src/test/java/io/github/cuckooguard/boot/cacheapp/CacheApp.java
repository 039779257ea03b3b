package io.github.cuckooguard.boot.cacheapp;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;

/**
 * A Boot application with Spring's cache abstraction and a SimpleMeterRegistry; the tests pick the
 * cache type by properties and run it with {@code spring.config.name=cacheapp}, so the guard
 * settings of the other test application (application.properties) do not apply here.
 */
@SpringBootApplication
@EnableCaching
public class CacheApp {

  @Bean
  SimpleMeterRegistry simpleMeterRegistry() {
    return new SimpleMeterRegistry();
  }
}
