package io.github.cuckooguard.caffeine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The shared contract where keys leave by expiring: remove gives the entry a zero lifetime, so it
 * is gone for readers at once but stays in Caffeine's map, hidden from its key iterator, until
 * maintenance evicts it through the eviction listener. Time passes (and maintenance runs) before
 * each rebuild, while the writers keep expiring keys, so every rebuild scans a cache holding
 * expired entries that are not evicted yet: the rebuild key source must emit them, or their later
 * eviction removes a colliding key's fingerprint from the rebuilt filter. A re-insert is a put over
 * an expired entry (Caffeine evicts it inside the put, then the key enters again).
 */
class CaffeineExpiryContractTest extends GuardedSourceContract {

  @Override
  protected Subject newSubject(GuardSpec spec) {
    FakeTicker ticker = new FakeTicker();
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .spec(spec)
            .ticker(ticker)
            .build();
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(100_000)
                .expireAfter(Expiry.writing((Long k, String v) -> Duration.ofDays(1))));
    Policy.VarExpiration<Long, String> expiry = cache.policy().expireVariably().orElseThrow();
    return new CaffeineSubject(guard, cache) {
      @Override
      public void insert(long key) {
        cache.put(key, "v");
      }

      @Override
      public void remove(long key) {
        expiry.put(key, "expired", 0, TimeUnit.NANOSECONDS);
      }

      @Override
      public CompletableFuture<?> rebuild() {
        // Two ticks of the timer wheel (~1.07 s each), each followed by maintenance. One is not
        // enough: an asynchronous maintenance may advance the wheel to the new time and expire
        // what it has rescheduled so far; a zero-lifetime update it had not drained yet is then
        // rescheduled by cleanUp() into the bucket of the current tick, which expires only once
        // the clock passes the next tick (two runs of 3,000 quiet rounds with one advance: 7 and 1
        // rounds kept 3 to 100 expired entries, which the rebuild rightly emits; 10,000 with two:
        // 0).
        ticker.advance(Duration.ofSeconds(2));
        cache.cleanUp();
        ticker.advance(Duration.ofSeconds(2));
        cache.cleanUp();
        return guard.rebuild();
      }
    };
  }
}
