package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.boot.cacheapp.CacheApp;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.context.ApplicationContext;

/**
 * Spring's CaffeineCacheManager made by Boot ({@code spring.cache.type=caffeine}): the caches named
 * under {@code cuckooguard.cache.} are guarded Caffeine caches built from {@code
 * spring.cache.caffeine.spec} with the settings from the Environment (fpp 0.3 makes a smaller
 * filter than 0.001 for the same capacity); every key Spring's cache abstraction wrote is found,
 * evicted keys leave, and absent keys are answered by the guard. The meters, the health indicator
 * and the endpoint read each cache's guard.
 */
@SpringBootTest(
    classes = CacheApp.class,
    properties = {
      "spring.config.name=cacheapp",
      "spring.cache.type=caffeine",
      "spring.cache.cache-names=pages,exact,plain,metered",
      "spring.cache.caffeine.spec=maximumSize=2000",
      "cuckooguard.cache.pages.fpp=0.3",
      "cuckooguard.cache.pages.expected-insertions=2000",
      "cuckooguard.cache.exact.fpp=0.001",
      "cuckooguard.cache.exact.expected-insertions=2000",
      "cuckooguard.cache.metered.fpp=0.001",
      "cuckooguard.cache.metered.expected-insertions=2000",
      "management.endpoints.web.exposure.include=health,cuckooguard"
    })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CaffeineCacheManagerTest {

  @Autowired CacheManager cacheManager;
  @Autowired CaffeineCacheGuards guards;
  @Autowired MeterRegistry registry;
  @Autowired GuardCatalog catalog;
  @Autowired CuckooGuardEndpoint endpoint;
  @Autowired ApplicationContext context;

  @Test
  void namedCachesAreGuardedWithTheirSettings() {
    assertThat(cacheManager).isInstanceOf(CaffeineCacheManager.class);
    assertThat(guards.guards()).containsOnlyKeys("pages", "exact", "metered");
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
      // the cache answers its own lookups (Caffeine's miss is exact and faster than the filter);
      // the guard answers the callers that route around the cache
      assertThat(cache.get("absent-" + i)).isNull();
      guard.mightContain("absent-" + i);
    }
    for (int i = 1; i <= 501; i++) {
      assertThat(guard.mightContain("page-" + i)).as("guard, page-%d", i).isTrue();
    }
    assertThat(guard.stats().definiteMisses() - before)
        .as("fpp 0.001: at most a few (expected 1) of 1000 let through")
        .isGreaterThanOrEqualTo(990);
  }

  private double counter(String name, String... tags) {
    return registry
        .get(name)
        .tags("guard", "metered", "kind", "cache", "cache", "metered")
        .tags("cache.manager", "cacheManager")
        .tags(tags)
        .functionCounter()
        .count();
  }

  private double gauge(String name, String... tags) {
    return registry.get(name).tags("guard", "metered", "kind", "cache").tags(tags).gauge().value();
  }

  @Test
  void metersHealthAndEndpointReadWhatTheCacheGuardDid() throws InterruptedException {
    Cache cache = cacheManager.getCache("metered");
    CaffeineGuard<Object, Object> guard = guards.guard("metered");
    for (int i = 0; i < 100; i++) {
      cache.put("m-" + i, "v" + i);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(cache.get("m-" + i)).as("m-%d", i).isNotNull();
      assertThat(guard.mightContain("m-" + i)).as("guard, m-%d", i).isTrue();
    }
    for (int i = 0; i < 1_000; i++) {
      assertThat(cache.get("absent-" + i)).isNull();
      guard.mightContain("absent-" + i);
    }
    GuardStats stats = guard.stats();
    assertThat(catalog.guard("metered").kind()).isEqualTo(GuardView.Kind.CACHE);
    assertThat(counter("cuckooguard.lookups", "result", "definite-miss"))
        .isEqualTo((double) stats.definiteMisses())
        .as("fpp 0.001: at most a few (expected 1) of 1000 absent keys let through")
        .isGreaterThanOrEqualTo(990);
    assertThat(counter("cuckooguard.lookups", "result", "might-contain"))
        .isEqualTo((double) (stats.lookups() - stats.definiteMisses()))
        .as("the 100 present keys were let through")
        .isGreaterThanOrEqualTo(100);
    assertThat(gauge("cuckooguard.size")).isEqualTo(100.0);
    assertThat(gauge("cuckooguard.size.bytes"))
        .isEqualTo((double) stats.sizeInBytes())
        .isPositive();
    assertThat(gauge("cuckooguard.fpp", "estimate", "expected")).isEqualTo(0.001);
    assertThat(gauge("cuckooguard.pass.through")).isZero();

    HealthProbe.Reading health = HealthProbe.read(context);
    assertThat(health.status()).isEqualTo("UP");
    @SuppressWarnings("unchecked")
    Map<String, Object> detail = (Map<String, Object>) health.details().get("metered");
    assertThat(detail).containsEntry("kind", "cache").containsEntry("size", 100L);

    assertThat(endpoint.guard("metered"))
        .containsEntry("kind", "cache")
        .containsEntry("definiteMisses", stats.definiteMisses())
        .containsEntry("expectedFpp", 0.001);
    double rebuilds = counter("cuckooguard.rebuilds", "result", "success");
    endpoint.action("metered", "rebuild");
    Awaits.until(
        "the rebuild the endpoint requested",
        Duration.ofSeconds(60),
        () -> counter("cuckooguard.rebuilds", "result", "success") > rebuilds);
    for (int i = 0; i < 100; i++) {
      assertThat(cache.get("m-" + i)).as("m-%d after the rebuild", i).isNotNull();
    }
    assertThat(gauge("cuckooguard.size")).isEqualTo(100.0);
  }
}
