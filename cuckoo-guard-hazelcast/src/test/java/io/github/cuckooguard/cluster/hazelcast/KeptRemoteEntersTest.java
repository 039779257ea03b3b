package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A receiver keeps an open remote enter in flight until the writer's end arrives, across its own
 * lapses (see {@code LostOriginTest.readerLapsedBeforeTheWriterWasRemoved} for why). These tests
 * pin what that needs from the rest of the protocol: the end still reaches it after a lapse, and a
 * writer's operation numbers never repeat, so a kept enter cannot swallow a newer write's begin.
 */
class KeptRemoteEntersTest {

  private static final Duration WITHIN = Duration.ofSeconds(30);

  /**
   * B lapses (twice: its JOIN is refused while A's enters are open) with A's enters open, and stays
   * at its new epoch; A's record of B is one epoch behind, so A's ends carry an epoch B no longer
   * has. They must still end the enters there (fails when ends are applied only at the current
   * epoch: the 50 enters stay open for good).
   */
  @Test
  @Timeout(120)
  void endsOfEntersBegunBeforeALapseAreStillApplied() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastGuardGroup<Long> a = members.group(members.start(), source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      Members.awaitLeased(WITHIN, a, b);
      List<ReplicatedGuard.Enter<Long>> open = new ArrayList<>();
      for (long k = 1; k <= 50; k++) {
        open.add(a.guard().beginEnter(k));
      }
      assertThat(b.openRemoteWrites()).isEqualTo(50);
      long lapses = b.lapses();
      b.renewalsPaused = true;
      Thread.sleep(Members.LEASE.toMillis() + 200);
      b.renewalsPaused = false;
      long deadline = System.nanoTime() + WITHIN.toNanos();
      while (b.lapses() == lapses) {
        assertThat(System.nanoTime() - deadline).as("B lapsed").isNegative();
        Thread.sleep(1);
      }
      b.renewalsPaused = true; // the round under way (a JOIN A refuses) ends in another lapse
      long seen;
      do {
        seen = b.lapses();
        Thread.sleep(Members.LEASE.toMillis());
      } while (b.lapses() != seen);
      assertThat(b.mayAnswerAbsent()).isFalse();
      int openAfterLapses = b.openRemoteWrites();
      for (int i = 0; i < open.size(); i++) {
        source.add(i + 1L);
        open.get(i).visible().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (b.openRemoteWrites() > 0 && System.nanoTime() - deadline < 0) {
        Thread.sleep(5);
      }
      int openAfterEnds = b.openRemoteWrites();
      b.renewalsPaused = false;
      Members.awaitLeased(WITHIN, b);
      long wrong = 0;
      for (long k = 1; k <= 50; k++) {
        if (!b.guard().mightContain(k)) {
          wrong++;
        }
      }
      System.out.printf(
          "lapses of B %d; B's open remote enters after the lapses %d, after A's ends %d;"
              + " absent answers %d%n",
          b.lapses() - lapses, openAfterLapses, openAfterEnds, wrong);
      assertThat(openAfterLapses).as("the lapses kept A's open enters").isEqualTo(50);
      assertThat(openAfterEnds).as("A's ends reached B after its lapses").isZero();
      assertThat(wrong).isZero();
    }
  }

  /**
   * A's group is closed with an enter still open (its end is never sent), and a new group of the
   * same name joins on the same member: B still holds the old enter under A's member. The new
   * group's first write must be applied on B, not taken for a redelivery of the old one (fails when
   * each replicated guard numbers its operations from 1: B's filter lacks the new key although A's
   * begin returned).
   */
  @Test
  @Timeout(120)
  void aGroupJoinedAgainOnTheSameMemberNeverReusesAnOperationNumber() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance aMember = members.start();
      HazelcastGuardGroup<Long> a = members.group(aMember, source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      Members.awaitLeased(WITHIN, a, b);
      ReplicatedGuard.Enter<Long> stale = a.guard().beginEnter(1_000L);
      assertThat(b.openRemoteWrites()).isOne();
      long lapses = b.lapses();
      a.close(); // the open enter's end is never sent
      HazelcastGuardGroup<Long> again = members.group(aMember, source);
      // The new group has no record of B: it grants B's renewals as a stranger's (recording it) or
      // B lapses and JOINs it; either way its writes ask B (as a stranger or as a peer). Wait until
      // both are leased and B has renewed at least once since the close.
      Thread.sleep(Members.LEASE.toMillis());
      Members.awaitLeased(WITHIN, again, b);
      long key = 2_000L;
      assertThat(b.guard().local().mightContain(key)).as("not in B's filter before").isFalse();
      ReplicatedGuard.Enter<Long> enter = again.guard().beginEnter(key);
      boolean onB = b.guard().local().mightContain(key);
      System.out.printf(
          "group joined again: key on B after the begin %s; B's open remote enters %d; lapses of"
              + " B meanwhile %d%n",
          onB, b.openRemoteWrites(), b.lapses() - lapses);
      assertThat(onB).as("the new group's begin was applied on B").isTrue();
      source.add(key);
      enter.visible();
      stale.close();
    }
  }
}
