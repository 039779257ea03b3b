package io.github.cuckooguard.caffeine;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;

/**
 * The shared contract through Caffeine's computes: insert is a load ({@code LoadingCache.get}, the
 * enter begun inside the compute and made visible after it), remove is a compute that returns null
 * ({@code keyLeft} inside the atomic removal).
 */
class CaffeineComputeContractTest extends GuardedSourceContract {

  @Override
  protected Subject newSubject(GuardSpec spec) {
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).spec(spec).build();
    LoadingCache<Long, String> loading =
        guard.wrap(Caffeine.newBuilder().maximumSize(100_000), key -> "loaded");
    return new CaffeineSubject(guard, loading) {
      @Override
      public void insert(long key) {
        loading.get(key);
      }

      @Override
      public void remove(long key) {
        cache.asMap().compute(key, (k, v) -> null);
      }
    };
  }
}
