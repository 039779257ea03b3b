package io.github.cuckooguard.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Leaves that overlap an enter of their key ({@link OpenEnters}), on two members A and B of one
 * replicated guard whose engine delivers every message at once to the other member's {@link
 * RemoteWrites}, over a source that may apply one write twice (as Hazelcast does when it re-invokes
 * an operation whose owner left). Before {@link OpenEnters}: the key of {@link
 * #aRemovalBetweenTheTwoRunsOfAWriteKeepsTheCopyOnEveryMember} absent on A and on B after the
 * second run made it visible again ({@link #withoutTrackingTheRemovalTakesTheCopy} pins that
 * outcome).
 */
class OpenEntersTest {

  private final Set<Long> source = ConcurrentHashMap.newKeySet();

  /** One member: its guard, the remote writes it applies, and its view of the replicated guard. */
  private final class Member implements GroupEngine<Long> {
    final String name;
    final CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(10_000)
            .fpp(0.001)
            .executor(Runnable::run)
            .keySource(action -> source.forEach(action))
            .build();
    final RemoteWrites<Long> remote;
    final ReplicatedGuard<Long> replicated;
    Member other;

    Member(String name, boolean tracking) {
      this.name = name;
      OpenEnters<Long> enters = tracking ? new OpenEnters<>() : OpenEnters.none();
      this.remote = new RemoteWrites<>(guard, enters);
      this.replicated = new ReplicatedGuard<>(guard, this, enters);
    }

    @Override
    public void enterBegun(long op, Long key) {
      other.remote.enterBegun(name, op, key);
    }

    @Override
    public CompletionStage<Void> enterEnded(long op, boolean visible) {
      other.remote.enterEnded(name, op, visible);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void leaveBegun(long op, Long key) {
      other.remote.leaveBegun(name, op, key);
    }

    @Override
    public CompletionStage<Void> leaveEnded(long op, boolean gone) {
      other.remote.leaveEnded(name, op, gone);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean mayAnswerAbsent() {
      return true;
    }
  }

  private Member[] members(boolean tracking) {
    Member a = new Member("a", tracking);
    Member b = new Member("b", tracking);
    a.other = b;
    b.other = a;
    return new Member[] {a, b};
  }

  /** A writes 42 (two runs), B removes it between them: the second run's 42 has a copy. */
  private static void writeRemoveWriteAgain(Member a, Member b, Set<Long> source)
      throws InterruptedException {
    ReplicatedGuard.Enter<Long> write = a.replicated.beginEnter(42L);
    source.add(42L); // the first run
    ReplicatedGuard.Leave<Long> remove = b.replicated.beginLeave(42L);
    source.remove(42L);
    remove.gone();
    source.add(42L); // the second run, re-invoked on the new owner, creates it again
    write.visible();
  }

  @Test
  void aRemovalBetweenTheTwoRunsOfAWriteKeepsTheCopyOnEveryMember() throws Exception {
    Member[] m = members(true);
    writeRemoveWriteAgain(m[0], m[1], source);
    assertThat(m[0].replicated.mightContain(42L)).as("on A").isTrue();
    assertThat(m[1].replicated.mightContain(42L)).as("on B").isTrue();
  }

  @Test
  void withoutTrackingTheRemovalTakesTheCopy() throws Exception {
    Member[] m = members(false);
    writeRemoveWriteAgain(m[0], m[1], source);
    assertThat(m[0].replicated.mightContain(42L)).as("on A").isFalse();
    assertThat(m[1].replicated.mightContain(42L)).as("on B").isFalse();
  }

  @Test
  void anEnterBegunDuringTheLeaveOverlapsIt() throws Exception {
    Member[] m = members(true);
    m[0].guard.keyEntered(5L);
    m[1].guard.keyEntered(5L);
    ReplicatedGuard.Leave<Long> remove = m[1].replicated.beginLeave(5L);
    ReplicatedGuard.Enter<Long> write = m[0].replicated.beginEnter(5L); // reaches B meanwhile
    write.abort();
    remove.gone(); // cancelled: the copy stays on both
    assertThat(m[0].replicated.mightContain(5L)).isTrue();
    assertThat(m[1].replicated.mightContain(5L)).isTrue();
  }

  @Test
  void aLeaveThatOverlapsNoEnterTakesTheCopy() throws Exception {
    Member[] m = members(true);
    ReplicatedGuard.Enter<Long> write = m[0].replicated.beginEnter(7L);
    source.add(7L);
    write.visible();
    ReplicatedGuard.Leave<Long> remove = m[1].replicated.beginLeave(7L);
    source.remove(7L);
    remove.gone();
    assertThat(m[0].replicated.mightContain(7L)).isFalse();
    assertThat(m[1].replicated.mightContain(7L)).isFalse();
  }

  @Test
  void theCallsOwnEntersDoNotCount() throws Exception {
    Member[] m = members(true);
    ReplicatedGuard.Enter<Long> created = m[0].replicated.beginEnter(9L);
    source.add(9L);
    created.visible();
    // an entry processor on B: leave announced, then its own write, then it removed the entry
    ReplicatedGuard.Leave<Long> remove = m[1].replicated.beginLeave(9L);
    ReplicatedGuard.Enter<Long> own = m[1].replicated.beginEnter(9L);
    source.remove(9L);
    own.abort();
    remove.gone(1);
    assertThat(m[0].replicated.mightContain(9L)).isFalse();
    assertThat(m[1].replicated.mightContain(9L)).isFalse();
    assertThatThrownBy(() -> m[1].replicated.beginLeave(9L).gone(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ownEnters (-1)");
  }
}
