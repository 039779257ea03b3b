package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The core write protocol on a plain {@link ConcurrentHashMap} source whose key source is a plain
 * scan: each scenario is run sequentially, once as documented and once the broken way the old
 * {@code KeySource} recipe allowed, to show that the scenario is able to produce the false negative
 * the protocol prevents.
 */
class WriteProtocolTest {

  /** A 4-bit guard over a map; rebuilds run on the calling thread. */
  private static final class Source {
    final Set<Long> map = ConcurrentHashMap.newKeySet();
    final CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(16)
            .fingerprintBits(4)
            .seed(11)
            .keySource(map::forEach)
            .executor(Runnable::run)
            .build();

    void insert(long key) {
      try (PendingEnter<Long> enter = guard.beginEnter(key)) {
        map.add(key);
        enter.visible();
      }
    }
  }

  /** Enter k and c; remove k from the map; rebuild; report k's leave; is c still found? */
  private static boolean collidingKeySurvivesLateLeave(long k, long c, boolean announced) {
    Source s = new Source();
    s.insert(k);
    s.insert(c);
    PendingLeave<Long> leave = announced ? s.guard.beginLeave(k) : null;
    s.map.remove(k);
    s.guard.rebuild().join();
    if (leave != null) {
      leave.gone();
    } else {
      s.guard.keyLeft(k); // the old recipe: keyLeft after the key is gone
    }
    return s.guard.mightContain(c);
  }

  @Test
  void leaveReportedAfterARebuildThatNoLongerSawTheKeyKeepsTheCollidingKey() {
    // Find a key that collides with k in the rebuilt filter: the late, unannounced leave takes
    // its fingerprint (the false negative of the KeySource-leave-window report).
    long k = 1;
    long c = -1;
    for (long candidate = 2; candidate < 100_000 && c < 0; candidate++) {
      if (!collidingKeySurvivesLateLeave(k, candidate, false)) {
        c = candidate;
      }
    }
    assertThat(c).as("a colliding key for the broken variant").isPositive();
    assertThat(collidingKeySurvivesLateLeave(k, c, true))
        .as("key %s after the announced leave of %s", c, k)
        .isTrue();
  }

  @Test
  void enterInFlightDuringARebuildSurvivesAScanThatMissedIt() {
    Source s = new Source();
    PendingEnter<Long> enter = s.guard.beginEnter(7L);
    s.guard.rebuild().join(); // the scan does not see 7: it is not visible yet
    s.map.add(7L);
    enter.visible();
    assertThat(s.guard.mightContain(7L)).isTrue();
    assertThat(s.guard.stats().size()).isEqualTo(1);
    assertThat(s.guard.inFlight()).isZero();

    Source broken = new Source();
    broken.guard.keyEntered(7L); // no handle: the rebuild cannot know 7 is on its way
    broken.guard.rebuild().join();
    broken.map.add(7L);
    assertThat(broken.guard.mightContain(7L)).as("the broken variant loses the key").isFalse();
  }

  @Test
  void abortedEnterIsPairedAcrossARebuild() {
    Source s = new Source();
    for (long key = 100; key < 110; key++) {
      s.insert(key);
    }
    PendingEnter<Long> enter = s.guard.beginEnter(5L);
    s.guard.rebuild().join();
    enter.abort(); // removes the copy the rebuild held for 5, not another key's
    for (long key = 100; key < 110; key++) {
      assertThat(s.guard.mightContain(key)).as("key %s", key).isTrue();
    }
    assertThat(s.guard.stats().size()).isEqualTo(10);
  }

  @Test
  void duplicateEnterOfAVisibleKeyAbortedAfterTheSwapKeepsTheKey() {
    // A duplicate insert of a row that exists: the adapter begins an enter before the database
    // refuses it. The rebuild scans the visible key while the duplicate is in flight; settling
    // must not drop that scan copy, or the abort after the swap leaves the key without any.
    Source s = new Source();
    s.insert(9L);
    CuckooGuard<Long>[] guard = new CuckooGuard[1];
    PendingEnter<Long>[] duplicate = new PendingEnter[1];
    Set<Long> map = ConcurrentHashMap.newKeySet();
    map.add(9L);
    guard[0] =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(16)
            .fingerprintBits(4)
            .seed(11)
            .executor(Runnable::run)
            .keySource(
                action -> {
                  if (duplicate[0] == null) {
                    duplicate[0] = guard[0].beginEnter(9L); // during the scan, before it reaches 9
                  }
                  map.forEach(action);
                })
            .build();
    guard[0].beginEnter(9L).visible();
    guard[0].rebuild().join();
    duplicate[0].abort();
    assertThat(guard[0].mightContain(9L)).isTrue();
  }

  /**
   * A transactional store: a delete commits, another transaction inserts the key again and commits,
   * and only then does the delete's after-commit {@code gone()} run. A rebuild between the
   * re-insert and that {@code gone()} scans the new row; its settle must not drop that scan copy
   * for the leave the rebuild holds, or the re-inserted key is reported absent.
   */
  @Test
  void reinsertBeforeADelayedGoneSurvivesARebuild() {
    for (boolean goneBeforeSwap : new boolean[] {true, false}) {
      Set<Long> map = ConcurrentHashMap.newKeySet();
      PendingLeave<Long>[] duringScan = new PendingLeave[1];
      CuckooGuard<Long> guard =
          CuckooGuard.newBuilder(Funnels.longFunnel())
              .expectedInsertions(16)
              .fingerprintBits(4)
              .seed(11)
              .executor(Runnable::run)
              .keySource(
                  action -> {
                    map.forEach(action);
                    if (duringScan[0] != null) {
                      duringScan[0].gone(); // the delete's callback lands during the rebuild
                    }
                  })
              .build();
      try (PendingEnter<Long> enter = guard.beginEnter(42L)) {
        map.add(42L);
        enter.visible();
      }
      PendingLeave<Long> leave = guard.beginLeave(42L); // before the DELETE
      map.remove(42L); // the delete commits
      try (PendingEnter<Long> enter =
          guard.beginEnter(42L)) { // another transaction inserts it again
        map.add(42L);
        enter.visible();
      }
      duringScan[0] = goneBeforeSwap ? leave : null;
      guard.rebuild().join();
      if (!goneBeforeSwap) {
        leave.gone(); // the delete's callback lands after the swap
      }
      assertThat(guard.mightContain(42L))
          .as("re-inserted key, gone() %s the swap", goneBeforeSwap ? "before" : "after")
          .isTrue();
      assertThat(guard.isPassThrough()).isFalse();
      assertThat(guard.inFlight()).isZero();
    }
  }

  @Test
  void handlesEndOnce() {
    Source s = new Source();
    PendingEnter<Long> enter = s.guard.beginEnter(3L);
    s.map.add(3L);
    enter.visible();
    enter.close(); // no-op after visible()
    assertThat(s.guard.mightContain(3L)).isTrue();
    assertThatThrownBy(enter::abort)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ends once");
    PendingLeave<Long> leave = s.guard.beginLeave(3L);
    leave.close(); // cancel: 3 stays
    assertThat(s.guard.mightContain(3L)).isTrue();
    assertThatThrownBy(leave::gone).isInstanceOf(IllegalStateException.class);
    assertThat(s.guard.inFlight()).isZero();
  }

  @Test
  void closeWithoutVisibleAbortsTheEnter() {
    Source s = new Source();
    try (PendingEnter<Long> enter = s.guard.beginEnter(4L)) {
      assertThat(s.guard.mightContain(4L)).isTrue(); // added before visible
    }
    assertThat(s.guard.stats().size()).isZero();
  }
}
