package io.github.cuckooguard.caffeine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;
import java.time.Duration;

/**
 * The shared contract on a real Caffeine cache, size-bounded and expiring on a fake clock (which
 * stands still, so nothing expires behind the writers' backs), with Caffeine's own asynchronous
 * maintenance: insert is {@code cache.put} (a plain put run as an enter), remove is {@code
 * cache.invalidate} (a plain removal announced with a leave).
 */
class CaffeineGuardContractTest extends GuardedSourceContract {

  @Override
  protected Subject newSubject(GuardSpec spec) {
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .spec(spec)
            .ticker(new FakeTicker())
            .build();
    Cache<Long, String> cache =
        guard.wrap(Caffeine.newBuilder().maximumSize(100_000).expireAfterWrite(Duration.ofDays(1)));
    return new CaffeineSubject(guard, cache) {
      @Override
      public void insert(long key) {
        cache.put(key, "v");
      }

      @Override
      public void remove(long key) {
        cache.invalidate(key);
      }
    };
  }
}
