package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member that joined the group before the writer did has no record on the writer until the writer
 * grants its first renewal (grantRenew records it then, without a JOIN's drain). A begin that reads
 * the writer's records while that member has none, and whose renewal is granted before the begin
 * asks the members without a record, must still ask it: otherwise the member renews its lease with
 * a complete filter that lacks the key and answers "definitely absent" once the key is visible.
 *
 * <p>Deterministic: A is complete and leased, its renewals paused, when B joins (A records B by its
 * JOIN; B has no record of A). B's clock skips its first-writes wait. B's begin stops after reading
 * its records (a test hook) until A's renewal, resumed, was granted and recorded on B; then the
 * begin goes on, the key becomes visible, and A is asked about it.
 */
class StrangerRecordedMidBeginTest {

  /**
   * Long enough that A's lease outlives its paused renewals: B's member start, its JOIN, the hook.
   */
  private static final Duration LEASE = Duration.ofSeconds(10);

  @Test
  @Timeout(60)
  void aMemberRecordedByItsRenewalDuringABeginIsStillAsked() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance hzA = members.start();
      HazelcastGuardGroup<Long> a = members.group(hzA, source, LEASE);
      Members.awaitLeased(Duration.ofSeconds(20), a);
      // Paused before B's member exists: no round of A can reach B's group.
      a.renewalsPaused = true;
      HazelcastInstance hzB = members.start();
      AtomicLong skip = new AtomicLong();
      CuckooGuard<Long> guardB =
          CuckooGuard.newBuilder(Funnels.longFunnel())
              .name("ids")
              .expectedInsertions(10_000)
              .fpp(0.001)
              .keySource(action -> source.forEach(action))
              .build();
      HazelcastGuardGroup<Long> b =
          HazelcastGuardGroup.newBuilder(hzB, guardB)
              .lease(LEASE)
              .clock(() -> System.nanoTime() + skip.get())
              .join();
      try {
        UUID idA = hzA.getCluster().getLocalMember().getUuid();
        UUID idB = hzB.getCluster().getLocalMember().getUuid();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!a.hasRecordOf(idB)) { // B's JOIN reached A
          assertThat(System.nanoTime() - deadline).as("B JOINed at A").isNegative();
          Thread.sleep(5);
        }
        assertThat(b.hasRecordOf(idA)).as("A is a stranger to B").isFalse();
        // B's first writes wait one revocation wait after its group started; skip it on B's clock
        // (A's lease, granted by no one but the observer-less group, is what the test is about).
        skip.set(2 * LEASE.toNanos());

        b.afterPeerRecordsRead =
            () -> {
              b.afterPeerRecordsRead = () -> {};
              a.renewalsPaused = false;
              long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
              try {
                while (!b.hasRecordOf(idA)) { // A's renewal granted and recorded on B
                  assertThat(System.nanoTime() - until).as("A renewed at B").isNegative();
                  Thread.sleep(2);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            };
        long key = 4242L;
        ReplicatedGuard.Enter<Long> enter = b.guard().beginEnter(key);
        source.add(key); // visible at the source only after the begin returned
        enter.visible();

        assertThat(a.mayAnswerAbsent())
            .as("A holds a fresh lease: its renewal was granted by B")
            .isTrue();
        assertThat(a.guard().mightContain(key))
            .as("A answers for a key B made visible (false: a false negative)")
            .isTrue();
      } finally {
        b.close();
      }
    }
  }
}
