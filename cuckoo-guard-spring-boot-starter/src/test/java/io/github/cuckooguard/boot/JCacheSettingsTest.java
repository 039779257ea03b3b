package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.boot.cacheapp.CacheApp;
import io.github.cuckooguard.jcache.GuardedCache;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

/**
 * JCache through Boot ({@code spring.cache.type=jcache} with cuckoo-guard-jcache's provider over
 * Caffeine-JCache): {@code cuckooguard.cache.<name>.*} from the Environment reaches each cache's
 * guard (before, cuckoo-guard-jcache read system properties only).
 */
@SpringBootTest(
    classes = CacheApp.class,
    properties = {
      "spring.config.name=cacheapp",
      "spring.cache.type=jcache",
      "spring.cache.jcache.provider=io.github.cuckooguard.jcache.GuardedCachingProvider",
      "spring.cache.cache-names=books,exact",
      "cuckooguard.cache.books.fpp=0.3",
      "cuckooguard.cache.books.expected-insertions=5000",
      "cuckooguard.cache.exact.fpp=0.001",
      "cuckooguard.cache.exact.expected-insertions=5000"
    })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JCacheSettingsTest {

  @Autowired CacheManager cacheManager;

  @SuppressWarnings("unchecked")
  private GuardedCache<Object, Object> guarded(String name) {
    javax.cache.Cache<Object, Object> cache =
        (javax.cache.Cache<Object, Object>) cacheManager.getCache(name).getNativeCache();
    assertThat(cache).isInstanceOf(GuardedCache.class);
    return (GuardedCache<Object, Object>) cache;
  }

  @Test
  void settingsFromTheEnvironmentReachTheCachesGuards() {
    assertThat(guarded("books").stats().sizeInBytes())
        .as("fpp 0.3 needs fewer fingerprint bits than 0.001")
        .isLessThan(guarded("exact").stats().sizeInBytes());
  }

  @Test
  void writtenKeysAreFoundAndAbsentOnesShortCircuit() {
    Cache cache = cacheManager.getCache("exact");
    for (int i = 0; i < 200; i++) {
      cache.put("k" + i, "v" + i);
    }
    for (int i = 0; i < 200; i++) {
      assertThat(cache.get("k" + i)).as("k%d", i).isNotNull();
    }
    long before = guarded("exact").stats().definiteMisses();
    for (int i = 0; i < 1_000; i++) {
      assertThat(cache.get("absent-" + i)).isNull();
    }
    assertThat(guarded("exact").stats().definiteMisses() - before).isGreaterThanOrEqualTo(990);
  }
}
