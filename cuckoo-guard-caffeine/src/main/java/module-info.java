/**
 * Cuckoo Guard for Caffeine: {@code CaffeineGuard} builds a Caffeine {@code Cache} or {@code
 * LoadingCache} whose write paths keep a cuckoo filter in step with the cache's keys. Only the
 * {@code io.github.cuckooguard.caffeine} package is API; its {@code internal} package is not
 * exported.
 */
module io.github.cuckooguard.caffeine {
  // CaffeineGuard's signatures name the core's Funnel, GuardSpec and GuardStats, and Caffeine's
  // Caffeine, Cache and LoadingCache: a reader of this module needs to read both.
  requires transitive io.github.cuckooguard.core;
  requires transitive com.github.benmanes.caffeine;
  requires static org.jspecify;

  exports io.github.cuckooguard.caffeine;
}
