package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One guard of the application context as the starter's meters, health indicator and endpoint see
 * it: a guard bean declared with {@code @CuckooGuarded(name = …)} (or defined by the application),
 * a cuckoo-guard-hibernate entity guard used through {@code @CuckooGuarded(entity = …)} or
 * {@code @GuardedEntity}, or the guard of a cache of a Spring {@code CacheManager} bean (a
 * cuckoo-guard-jcache {@code GuardedCache}, or a Caffeine cache the starter guards in Spring's
 * {@code CaffeineCacheManager}). Implementations are thread-safe.
 */
public interface GuardView {

  /** What kind of guard this is. */
  enum Kind {
    /** A {@code CuckooGuard} bean; {@link #name()} is the bean name. */
    BEAN,
    /** A cuckoo-guard-hibernate entity guard; {@link #name()} is the JPA entity name. */
    ENTITY,
    /**
     * The guard of a cache; {@link #name()} is the cache name (or {@code <cache manager>:<cache
     * name>} when another guard has that name), {@link #tags()} name the cache and its manager.
     */
    CACHE
  }

  /** The guard's name: the bean name, or the JPA entity name of an entity guard. */
  String name();

  /** The kind of guard. */
  Kind kind();

  /**
   * Tags that the meters carry besides {@code guard} and {@code kind}: for a cache, {@code cache}
   * and {@code cache.manager}, as Boot's cache meters have them; empty for the other kinds.
   */
  default Map<String, String> tags() {
    return Map.of();
  }

  /** A snapshot of the guard's counters (see {@link GuardStats} for its consistency). */
  GuardStats stats();

  /** The configured false positive probability, or {@code NaN} when the starter cannot see it. */
  double expectedFpp();

  /** Requests a rebuild from the guard's key source; completes when it is done or failed. */
  CompletableFuture<Void> rebuild();

  /** Switches the guard to pass-through until the next rebuild, which this requests. */
  void markStale(String reason);
}
