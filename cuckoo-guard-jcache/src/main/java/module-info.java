/**
 * Cuckoo Guard for JCache (JSR-107): {@code GuardedCachingProvider} wraps any registered {@code
 * CachingProvider}, and its caches answer definite misses without the provider's round trip. Only
 * the {@code io.github.cuckooguard.jcache} package is API; its {@code internal} package is not
 * exported.
 */
module io.github.cuckooguard.jcache {
  // The API implements and returns javax.cache types and takes the core's Funnel and GuardSpec.
  requires transitive io.github.cuckooguard.core;
  requires transitive cache.api; // cache-api 1.1.1 has no module name of its own: derived name
  requires static org.jspecify;

  // Optional, each used only when the wrapped provider is that one (detected by class name):
  // Caffeine's JCache provider, Ehcache 3 and a Hazelcast member (with the cluster module).
  requires static com.github.benmanes.caffeine;
  requires static com.github.benmanes.caffeine.jcache;
  requires static ehcache; // derived name: ehcache 3.12.0 declares none
  requires static com.hazelcast.core;
  // The cluster module: a cache over a Hazelcast member joins the guard group of its cache.
  requires static io.github.cuckooguard.cluster.hazelcast;

  // The delegate provider is the one other CachingProvider registered for the class loader.
  // GuardedCachingProvider is not itself provided: it would make that provider ambiguous.
  uses javax.cache.spi.CachingProvider;

  exports io.github.cuckooguard.jcache;
}
