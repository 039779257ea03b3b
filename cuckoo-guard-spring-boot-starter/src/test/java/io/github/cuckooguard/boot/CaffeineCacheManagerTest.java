package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.boot.cacheapp.CacheApp;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.cache.interceptor.SimpleKey;

/**
 * Spring's CaffeineCacheManager made by Boot ({@code spring.cache.type=caffeine}): the caches named
 * under {@code cuckooguard.cache.} are guarded Caffeine caches built from {@code
 * spring.cache.caffeine.spec} with the settings from the Environment (fpp 0.3 makes a smaller
 * filter than 0.001 for the same capacity); every key Spring's cache abstraction wrote is found,
 * evicted keys leave, and absent keys are answered by the guard.
 */
@SpringBootTest(
    classes = CacheApp.class,
    properties = {
      "spring.config.name=cacheapp",
      "spring.cache.type=caffeine",
      "spring.cache.cache-names=pages,exact,plain",
      "spring.cache.caffeine.spec=maximumSize=2000",
      "cuckooguard.cache.pages.fpp=0.3",
      "cuckooguard.cache.pages.expected-insertions=2000",
      "cuckooguard.cache.exact.fpp=0.001",
      "cuckooguard.cache.exact.expected-insertions=2000"
    })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CaffeineCacheManagerTest {

  @Autowired CacheManager cacheManager;
  @Autowired CaffeineCacheGuards guards;

  @Test
  void namedCachesAreGuardedWithTheirSettings() {
    assertThat(cacheManager).isInstanceOf(CaffeineCacheManager.class);
    assertThat(guards.guards()).containsOnlyKeys("pages", "exact");
    CaffeineGuard<Object, Object> pages = guards.guard("pages");
    CaffeineGuard<Object, Object> exact = guards.guard("exact");
    assertThat(pages.stats().sizeInBytes())
        .as("fpp 0.3 needs fewer fingerprint bits than 0.001")
        .isLessThan(exact.stats().sizeInBytes());
    assertThat(cacheManager.getCache("pages").getNativeCache().getClass().getName())
        .startsWith("io.github.cuckooguard.caffeine");
    assertThat(cacheManager.getCache("plain").getNativeCache().getClass().getName())
        .as("a cache without settings stays plain")
        .startsWith("com.github.benmanes.caffeine");
  }

  @Test
  void compositeKeysEqualButNotIdenticalAreFound() {
    Cache cache = cacheManager.getCache("exact");
    for (int i = 0; i < 200; i++) {
      cache.put(new SimpleKey("order", i), "v" + i);
    }
    for (int i = 0; i < 200; i++) {
      assertThat(cache.get(new SimpleKey("order", i)))
          .as("a new SimpleKey equal to the written one, %d", i)
          .isNotNull();
    }
  }

  @Test
  void everyWrittenKeyIsFoundAndAbsentKeysAreAnsweredByTheGuard() {
    Cache cache = cacheManager.getCache("exact");
    CaffeineGuard<Object, Object> guard = guards.guard("exact");
    for (int i = 0; i < 500; i++) {
      cache.put("page-" + i, "v" + i);
    }
    cache.putIfAbsent("page-500", "v500");
    assertThat(cache.get("page-501", () -> "v501")).isEqualTo("v501");
    for (int i = 0; i <= 501; i++) {
      assertThat(cache.get("page-" + i)).as("page-%d", i).isNotNull();
    }
    cache.evict("page-0");
    assertThat(cache.get("page-0")).isNull();
    long before = guard.stats().definiteMisses();
    for (int i = 0; i < 1_000; i++) {
      assertThat(cache.get("absent-" + i)).isNull();
    }
    assertThat(guard.stats().definiteMisses() - before)
        .as("fpp 0.001: at most a few (expected 1) of 1000 let through")
        .isGreaterThanOrEqualTo(990);
  }
}
