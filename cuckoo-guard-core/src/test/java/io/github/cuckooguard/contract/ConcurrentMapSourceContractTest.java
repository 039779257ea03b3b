package io.github.cuckooguard.contract;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The contract on the plainest source there is: a {@link ConcurrentHashMap} key set whose {@code
 * KeySource} is a plain scan, with enters and leaves made through the guard's handles as
 * documented. This is the proof that a plain scan is a correct key source.
 */
class ConcurrentMapSourceContractTest extends GuardedSourceContract {

  @Override
  protected Subject newSubject(GuardSpec spec) {
    Set<Long> map = ConcurrentHashMap.newKeySet();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel()).spec(spec).keySource(map::forEach).build();
    return new Subject() {
      @Override
      public void insert(long key) {
        try (PendingEnter<Long> enter = guard.beginEnter(key)) {
          map.add(key);
          enter.visible();
        }
      }

      @Override
      public void remove(long key) {
        PendingLeave<Long> leave = guard.beginLeave(key);
        map.remove(key);
        leave.gone();
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
    };
  }
}
