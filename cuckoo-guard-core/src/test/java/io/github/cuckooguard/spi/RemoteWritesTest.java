package io.github.cuckooguard.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class RemoteWritesTest {

  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final CuckooGuard<Long> guard =
      CuckooGuard.newBuilder(Funnels.longFunnel())
          .expectedInsertions(10_000)
          .fpp(0.001)
          .executor(Runnable::run)
          .keySource(action -> source.forEach(action))
          .build();
  private final RemoteWrites<Long> remote = new RemoteWrites<>(guard);

  @Test
  void remoteEnterInFlightSurvivesARebuildThatDoesNotSeeTheKey() {
    remote.enterBegun("a", 1, 42L);
    guard.rebuild().join(); // the source does not show 42 yet
    assertThat(guard.mightContain(42L)).isTrue();
    source.add(42L);
    remote.enterEnded("a", 1, true);
    guard.rebuild().join();
    assertThat(guard.mightContain(42L)).isTrue();
    assertThat(remote.open()).isZero();
  }

  @Test
  void remoteAbortRemovesTheCopyItAdded() {
    remote.enterBegun("a", 1, 7L);
    remote.enterBegun("a", 1, 7L); // redelivered: applied once
    remote.enterEnded("a", 1, false);
    assertThat(guard.mightContain(7L)).isFalse();
    assertThat(guard.inFlight()).isZero();
  }

  @Test
  void goneWithoutItsAnnouncementIsDropped() {
    guard.keyEntered(9L);
    remote.leaveEnded("a", 5, true); // announcement never applied here
    assertThat(guard.mightContain(9L)).isTrue();
    remote.enterEnded("a", 6, false); // abort of an unknown enter: nothing removed
    assertThat(guard.mightContain(9L)).isTrue();
  }

  @Test
  void lostOriginKeepsItsOpenEntersAndCancelsItsLeaves() {
    guard.keyEntered(3L);
    remote.enterBegun("a", 1, 2L);
    remote.leaveBegun("a", 2, 3L);
    remote.enterBegun("b", 1, 4L);
    remote.originLost("a");
    assertThat(remote.open()).isOne();
    assertThat(guard.mightContain(2L)).isTrue();
    assertThat(guard.mightContain(3L)).isTrue();
    remote.releaseAll();
    assertThat(remote.open()).isZero();
    // a's enter of 2 stays in flight for good: a's process may still commit it after a rebuild here
    assertThat(guard.inFlight()).isOne();
  }

  @Test
  void releasedHoldMarksTheGuardStaleBeforeItEnds() {
    guard.rebuild().join();
    assertThat(guard.isPassThrough()).isFalse();
    remote.holdBegun("a", 1);
    remote.holdBegun("a", 1); // redelivered: applied once
    assertThat(remote.holding()).isTrue();
    remote.releaseAll(); // a lapse keeps holds: the write may still be running
    assertThat(remote.holding()).isTrue();
    source.add(77L); // the write commits
    CuckooGuard<Long> slow =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(1_000)
            .fpp(0.001)
            .executor(r -> {}) // rebuilds never run: pass-through stays on after the release
            .keySource(action -> source.forEach(action))
            .build();
    RemoteWrites<Long> held = new RemoteWrites<>(slow);
    held.holdBegun("a", 1);
    held.holdEnded("a", 1, "released");
    assertThat(held.holding()).isFalse();
    assertThat(slow.isPassThrough()).as("not absent until a rebuild after the release").isTrue();
    remote.holdEnded("a", 1, "released");
    assertThat(remote.holding()).isFalse();
    assertThat(guard.mightContain(77L)).as("the rebuild after the release saw the row").isTrue();
  }

  @Test
  void releaseThatOvertakesItsHoldDropsTheLateHold() {
    remote.holdEnded("a", 3, "released");
    remote.holdBegun("a", 3);
    assertThat(remote.holding()).isFalse();
  }

  @Test
  void lostOriginEndsItsHoldsAfterMarkingStale() {
    guard.rebuild().join();
    remote.holdBegun("a", 1);
    remote.holdBegun("b", 1);
    remote.originLost("a");
    assertThat(remote.holding()).as("b still holds").isTrue();
    remote.holdEnded("b", 1, "released");
    assertThat(remote.holding())
        .as("a's hold outlives its removal (it may still commit until its last fence ran out)")
        .isTrue();
    remote.lostHoldsEnded("a");
    assertThat(remote.holding()).isFalse();
    remote.holdBegun("a", 2); // late hold of a member that left: nobody would release it
    assertThat(remote.holding()).isFalse();
  }
}
