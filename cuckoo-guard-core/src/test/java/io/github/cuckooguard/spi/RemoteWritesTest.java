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
    assertThat(remote.orphaned()).isOne();
    assertThat(guard.mightContain(2L)).isTrue();
    assertThat(guard.mightContain(3L)).isTrue();
    remote.enterEnded("b", 1, true);
    assertThat(remote.open()).isZero();
    // a's enter of 2 stays in flight: a's process may still commit it after a rebuild here
    assertThat(guard.inFlight()).isOne();
    guard.rebuild().join();
    source.add(2L); // a commits after the rebuild
    assertThat(guard.mightContain(2L)).isTrue();
    remote.enterEnded("a", 1, true); // a's end, sent after its member left, still arrives
    assertThat(remote.orphaned()).isZero();
    assertThat(guard.inFlight()).isZero();
    guard.rebuild().join();
    assertThat(guard.mightContain(2L)).isTrue();
  }

  /**
   * The writer's begin was applied here, then this member lapsed before the writer made the key
   * visible (the writer paused between its acknowledgement and its commit). The lapsed member
   * rebuilds from a source without the key; the key becomes visible afterwards. A lapse that ends
   * the open enter as visible lets that rebuild drop it: the key is present and reported absent.
   */
  @Test
  void lapseKeepsAnOpenEnterInFlightThroughTheRebuildAfterIt() {
    source.add(5L);
    guard.keyEntered(5L);
    remote.leaveBegun("a", 2, 5L);
    remote.enterBegun("a", 1, 42L);
    remote.lapsed();
    assertThat(remote.open()).as("the enter stays open, the leave is cancelled").isOne();
    guard.rebuild().join(); // the rejoin's rebuild: the source does not show 42 yet
    assertThat(guard.isPassThrough()).isFalse();
    source.add(42L); // the writer resumes and commits
    assertThat(guard.mightContain(42L)).as("present key after the lapse's rebuild").isTrue();
    remote.leaveEnded("a", 2, true); // the cancelled leave's gone is dropped
    assertThat(guard.mightContain(5L)).isTrue();
    remote.enterEnded("a", 1, true); // the writer's end, after the lapse
    assertThat(remote.open()).isZero();
    assertThat(guard.inFlight()).isZero();
    guard.rebuild().join();
    assertThat(guard.mightContain(42L)).isTrue();
  }

  @Test
  void abortAfterALapseRemovesTheCopyItsBeginAdded() {
    remote.enterBegun("a", 1, 8L);
    remote.lapsed();
    remote.enterEnded("a", 1, false);
    assertThat(guard.mightContain(8L)).isFalse();
    assertThat(guard.inFlight()).isZero();
    assertThat(remote.open()).isZero();
  }

  @Test
  void releasedHoldMarksTheGuardStaleBeforeItEnds() {
    guard.rebuild().join();
    assertThat(guard.isPassThrough()).isFalse();
    remote.holdBegun("a", 1);
    remote.holdBegun("a", 1); // redelivered: applied once
    assertThat(remote.holding()).isTrue();
    remote.lapsed(); // a lapse keeps holds: the write may still be running
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
