package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.boot.cacheapp.CacheApp;
import io.github.cuckooguard.jcache.GuardedCache;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.context.ApplicationContext;

/**
 * JCache through Boot ({@code spring.cache.type=jcache} with cuckoo-guard-jcache's provider over
 * Caffeine-JCache): {@code cuckooguard.cache.<name>.*} from the Environment reaches each cache's
 * guard (before, cuckoo-guard-jcache read system properties only); the meters, the health indicator
 * and the endpoint read each cache's guard.
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
      "cuckooguard.cache.exact.expected-insertions=5000",
      "management.endpoints.web.exposure.include=health,cuckooguard"
    })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JCacheSettingsTest {

  @Autowired CacheManager cacheManager;
  @Autowired MeterRegistry registry;
  @Autowired CuckooGuardEndpoint endpoint;
  @Autowired ApplicationContext context;

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

  @Test
  void metersHealthAndEndpointReadWhatTheCacheGuardDid() {
    Cache cache = cacheManager.getCache("books");
    for (int i = 0; i < 50; i++) {
      cache.put("b" + i, "v" + i);
    }
    for (int i = 0; i < 50; i++) {
      assertThat(cache.get("b" + i)).as("b%d", i).isNotNull();
    }
    for (int i = 0; i < 500; i++) {
      assertThat(cache.get("absent-" + i)).isNull();
    }
    GuardStats stats = guarded("books").stats();
    Tags tags =
        Tags.of(
            "guard", "books", "kind", "cache", "cache", "books", "cache.manager", "cacheManager");
    assertThat(
            registry
                .get("cuckooguard.lookups")
                .tags(tags)
                .tag("result", "definite-miss")
                .functionCounter()
                .count())
        .isEqualTo((double) stats.definiteMisses())
        .as("fpp 0.3: at least about half of 500 absent keys answered by the guard")
        .isGreaterThanOrEqualTo(250);
    assertThat(
            registry
                .get("cuckooguard.lookups")
                .tags(tags)
                .tag("result", "might-contain")
                .functionCounter()
                .count())
        .isEqualTo((double) (stats.lookups() - stats.definiteMisses()))
        .isGreaterThanOrEqualTo(50);
    assertThat(registry.get("cuckooguard.size").tags(tags).gauge().value())
        .isEqualTo((double) stats.size())
        .isGreaterThanOrEqualTo(50);
    assertThat(registry.get("cuckooguard.pass.through").tags(tags).gauge().value()).isZero();
    assertThat(
            registry.find("cuckooguard.fpp").tags("guard", "books", "estimate", "expected").gauge())
        .as(
            "a JCache guard's configured fpp is not readable: no expected gauge rather than a wrong one")
        .isNull();

    HealthProbe.Reading health = HealthProbe.read(context);
    assertThat(health.details()).containsKeys("books", "exact");
    @SuppressWarnings("unchecked")
    Map<String, Object> detail = (Map<String, Object>) health.details().get("books");
    assertThat(detail).containsEntry("kind", "cache").containsEntry("passThrough", false);
    assertThat(endpoint.guard("books"))
        .containsEntry("kind", "cache")
        .containsEntry("definiteMisses", stats.definiteMisses());
  }
}
