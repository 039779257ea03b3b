package io.github.cuckooguard.boot.cacheapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * A Boot application with Spring's cache abstraction; the tests pick the cache type by properties
 * and run it with {@code spring.config.name=cacheapp}, so the guard settings of the other test
 * application (application.properties) do not apply here.
 */
@SpringBootApplication
@EnableCaching
public class CacheApp {}
