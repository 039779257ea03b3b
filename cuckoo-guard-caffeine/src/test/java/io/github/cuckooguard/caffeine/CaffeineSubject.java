package io.github.cuckooguard.caffeine;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.cuckooguard.contract.GuardedSourceContract;
import java.util.concurrent.CompletableFuture;

/**
 * A guarded Caffeine cache as a subject of the shared contract; insert and remove are the test's.
 */
abstract class CaffeineSubject implements GuardedSourceContract.Subject {

  final CaffeineGuard<Long, String> guard;
  final Cache<Long, String> cache;

  CaffeineSubject(CaffeineGuard<Long, String> guard, Cache<Long, String> cache) {
    this.guard = guard;
    this.cache = cache;
  }

  @Override
  public boolean mightContain(long key) {
    return guard.mightContain(key);
  }

  @Override
  public CompletableFuture<?> rebuild() {
    return guard.rebuild();
  }

  @Override
  public long fingerprints() {
    return guard.stats().size();
  }

  @Override
  public boolean isPassThrough() {
    return guard.isPassThrough();
  }
}
