package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression: a leave with a handle ends (gone) some time after its key left the source (at commit,
 * after Caffeine's remove returned); meanwhile the key entered again and became visible, before a
 * rebuild installed. The new incarnation has no transition during the rebuild, so its only copy in
 * the rebuilt filter is the scan's; the leave's hold was counted against that copy and released by
 * gone(), and the settle then removed the scan copy: a false negative for a key the source holds.
 * Found by cuckoo-guard-caffeine's churn with racing rebuilds (4 threads on one key space).
 */
class LateLeaveOfAReturnedKeyTest {

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aLeaveEndedAfterItsKeyCameBackKeepsTheNewIncarnation(boolean goneDuringTheRebuild) {
    Set<Long> map = ConcurrentHashMap.newKeySet();
    AtomicReference<@Nullable PendingLeave<Long>> endDuringScan = new AtomicReference<>();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(16)
            .fingerprintBits(8)
            .seed(11)
            .executor(Runnable::run)
            .keySource(
                action -> {
                  map.forEach(action);
                  PendingLeave<Long> leave = endDuringScan.getAndSet(null);
                  if (leave != null) {
                    leave.gone(); // the leave ends during the rebuild, after the scan emitted the
                    // key
                  }
                })
            .build();
    insert(guard, map, 1L);

    PendingLeave<Long> leave = guard.beginLeave(1L);
    map.remove(1L); // gone from the source; gone() comes later (e.g. after commit)
    insert(guard, map, 1L); // the key enters again and is visible
    if (goneDuringTheRebuild) {
      endDuringScan.set(leave);
    }
    guard.rebuild().join();
    if (!goneDuringTheRebuild) {
      leave.gone(); // in flight across the swap, ended after it
    }

    assertThat(map).containsExactly(1L);
    assertThat(guard.mightContain(1L)).as("the key the source holds").isTrue();
  }

  private static void insert(CuckooGuard<Long> guard, Set<Long> map, long key) {
    try (PendingEnter<Long> enter = guard.beginEnter(key)) {
      map.add(key);
      enter.visible();
    }
  }
}
