package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spi.GroupUnavailableException;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member Hazelcast removed gets nothing from the others any more (no lease, no begin applied, no
 * fence confirmed), and its holds stay open on the others long enough to outlast any fence it
 * passed before it was removed.
 */
class FenceTest {

  private static final Duration LEASED_WITHIN = Duration.ofSeconds(30);

  private static int ask(HazelcastInstance from, HazelcastInstance to, GroupTask task)
      throws Exception {
    Member target = to.getCluster().getLocalMember();
    return from.getExecutorService("cuckoo-guard")
        .submitToMember(task, target)
        .get(30, TimeUnit.SECONDS);
  }

  private static void awaitMembers(HazelcastInstance member, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (member.getCluster().getMembers().size() != count) {
      assertThat(System.nanoTime() - deadline).as("member list of " + count).isNegative();
      Thread.sleep(5);
    }
  }

  /**
   * C joins and is granted, then its member is terminated; messages under C's UUID sent to A after
   * A removed C (a JOIN at a new epoch, as a resumed process sends after its lease lapsed; a begin
   * at any epoch; a fence) are refused with REMOVED, and a member A has never seen is refused with
   * NACK. The old rule granted the JOIN (a new epoch cleared the revocation) and applied the begin.
   */
  @Test
  @Timeout(60)
  void removedMemberIsRefusedAndAnUnknownOneIsNotGranted() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance aMember = members.start();
      HazelcastInstance bMember = members.start();
      HazelcastInstance cMember = members.start();
      HazelcastGuardGroup<Long> a = members.group(aMember, source);
      HazelcastGuardGroup<Long> b = members.group(bMember, source);
      HazelcastGuardGroup<Long> c = members.group(cMember, source);
      Members.awaitLeased(LEASED_WITHIN, a, b, c);
      UUID removed = cMember.getCluster().getLocalMember().getUuid();
      cMember.getLifecycleService().terminate();
      awaitMembers(aMember, 2);
      long later = Long.MAX_VALUE / 2; // an epoch above any C had
      int join = -1;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      do { // the membership event may trail the member list by a moment
        join =
            ask(
                bMember,
                aMember,
                new GroupTask("ids", GroupTask.Kind.JOIN, removed, later, 0, null));
      } while (join != GroupTask.REMOVED && System.nanoTime() - deadline < 0);
      int renew =
          ask(
              bMember,
              aMember,
              new GroupTask("ids", GroupTask.Kind.RENEW, removed, later, 0, null));
      int begin =
          ask(
              bMember,
              aMember,
              new GroupTask(
                  "ids",
                  GroupTask.Kind.BEGIN_ENTER,
                  removed,
                  HazelcastGuardGroup.ANY_EPOCH,
                  7,
                  -42L));
      int fence =
          ask(
              bMember,
              aMember,
              new GroupTask(
                  "ids", GroupTask.Kind.FENCE, removed, HazelcastGuardGroup.ANY_EPOCH, 0, null));
      UUID unknown = UUID.randomUUID();
      int unknownJoin =
          ask(bMember, aMember, new GroupTask("ids", GroupTask.Kind.JOIN, unknown, later, 0, null));
      int unknownFence =
          ask(
              bMember,
              aMember,
              new GroupTask(
                  "ids", GroupTask.Kind.FENCE, unknown, HazelcastGuardGroup.ANY_EPOCH, 0, null));
      UUID bUuid = bMember.getCluster().getLocalMember().getUuid();
      int memberFence =
          ask(
              bMember,
              aMember,
              new GroupTask(
                  "ids", GroupTask.Kind.FENCE, bUuid, HazelcastGuardGroup.ANY_EPOCH, 0, null));
      System.out.printf(
          "removed member: join %d, renew %d, begin %d, fence %d; unknown: join %d, fence %d;"
              + " member: fence %d%n",
          join, renew, begin, fence, unknownJoin, unknownFence, memberFence);
      assertThat(join).as("JOIN of a removed member").isEqualTo(GroupTask.REMOVED);
      assertThat(renew).as("RENEW of a removed member").isEqualTo(GroupTask.REMOVED);
      assertThat(begin).as("BEGIN_ENTER of a removed member").isEqualTo(GroupTask.REMOVED);
      assertThat(a.openRemoteWrites()).as("the removed member's begin was not applied").isZero();
      assertThat(fence).as("FENCE of a removed member").isEqualTo(GroupTask.REMOVED);
      assertThat(unknownJoin).as("JOIN of a member not in A's list").isEqualTo(GroupTask.NACK);
      assertThat(unknownFence).as("FENCE of a member not in A's list").isEqualTo(GroupTask.NACK);
      assertThat(memberFence).as("FENCE of a member").isEqualTo(GroupTask.ACK);
    }
  }

  /**
   * A holds the group for a statement of unknown keys and its member is removed before the
   * statement's transaction commits. B keeps the hold for a lease after the removal (any fence A
   * passed before it was removed has run out by then), so a commit inside that bound is still
   * covered: B ends the hold only after marking its guard stale, and its rebuild sees the rows. The
   * old rule ended the hold at the removal (500 of 500 rows absent when B rebuilt before the
   * commit). A's own fence, asked after its member is gone, fails: it must roll back.
   */
  @Test
  @Timeout(60)
  void holdOfARemovedMemberOutlastsItsLastFence() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance aMember = members.start();
      HazelcastGuardGroup<Long> a = members.group(aMember, source);
      HazelcastInstance bMember = members.start();
      HazelcastGuardGroup<Long> b = members.group(bMember, source);
      Members.awaitLeased(LEASED_WITHIN, a, b);
      ReplicatedGuard.Hold hold = a.guard().hold();
      hold.fence(); // passes: A is a member
      assertThat(b.heldByAnotherMember()).isTrue();
      ReplicatedGuard.Enter<Long> open = a.guard().beginEnter(-7L); // shows when B saw A leave
      assertThat(b.openRemoteWrites()).isOne();
      aMember.getLifecycleService().terminate();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (b.openRemoteWrites() > 0) { // B's originLost moved the open enter to the orphans
        assertThat(System.nanoTime() - deadline).as("B saw A leave").isNegative();
        Thread.sleep(1);
      }
      long removedAt = System.nanoTime();
      boolean heldAtCommit = b.heldByAnotherMember();
      List<Long> rows = new ArrayList<>();
      for (long k = 10_001; k <= 10_500; k++) {
        rows.add(k);
      }
      source.addAll(rows); // the statement's transaction commits just after A's member left
      while (b.heldByAnotherMember()) {
        assertThat(System.nanoTime() - deadline).as("B ended the lost hold").isNegative();
        Thread.sleep(1);
      }
      long heldForMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - removedAt);
      deadline = System.nanoTime() + LEASED_WITHIN.toNanos();
      while (b.guard().mightContain(-1L)) {
        assertThat(System.nanoTime() - deadline).as("B answers absent again").isNegative();
        Thread.sleep(10);
      }
      long wrong = 0;
      for (long k : rows) {
        if (!b.guard().mightContain(k)) {
          wrong++;
        }
      }
      System.out.printf(
          "lost hold: held at the commit %s, held for %d ms after the removal, rows absent on B"
              + " %d of %d%n",
          heldAtCommit, heldForMillis, wrong, rows.size());
      assertThat(heldAtCommit).as("B still held A's write when it committed").isTrue();
      assertThat(heldForMillis).isGreaterThanOrEqualTo(Members.LEASE.toMillis() / 2);
      assertThat(wrong).as("rows B answers \"absent\" for").isZero();
      assertThatThrownBy(hold::fence).isInstanceOf(GroupUnavailableException.class);
      open.close();
    }
  }
}
