package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.PendingEnter;
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
 * The enters of one transaction, begun locally one by one and replicated together: one message per
 * member for the whole batch, and every key of it in flight on the other member before any becomes
 * visible. A receiver that acknowledged a batch before applying all of it would leave keys that the
 * other member answers "absent" for; this test counts them.
 */
class BatchEnterTest {

  private static final int BATCHES = 300;
  private static final int BATCH = 20;

  @Test
  @Timeout(150)
  void aBatchIsOneMessagePerMemberAndEveryKeyOfItIsInFlightEverywhereBeforeVisible()
      throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastGuardGroup<Long> a = members.group(members.start(), source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      Members.awaitLeased(Duration.ofSeconds(30), a, b);
      long key = 0;
      long falseNegatives = 0;
      long leasedChecks = 0;
      long batches = 0;
      long sentBatches = 0; // batches that went to B in exactly one message
      long overSent = 0; // batches that took more than one message
      long endsBefore = a.endMessagesSent();
      // On a loaded machine B's lease may run out (A then skips B until B has rejoined, and B
      // passes through): go on until enough batches reached a leased B, within a time bound.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while ((sentBatches < BATCHES || leasedChecks < BATCHES * BATCH / 2)
          && System.nanoTime() - deadline < 0) {
        long sentBefore = a.beginsSent();
        List<PendingEnter<Long>> begun = new ArrayList<>();
        for (int i = 0; i < BATCH; i++) {
          begun.add(a.guard().local().beginEnter(++key)); // as each row's statement is written
        }
        List<ReplicatedGuard.Enter<Long>> enters = a.guard().replicate(begun); // before the commit
        long sent = a.beginsSent() - sentBefore;
        sentBatches += sent == 1 ? 1 : 0;
        overSent += sent > 1 ? 1 : 0;
        batches++;
        for (ReplicatedGuard.Enter<Long> e : enters) {
          source.add(e.key());
        }
        enters.forEach(ReplicatedGuard.Enter::visible);
        boolean leased = b.mayAnswerAbsent();
        for (long k = key - BATCH + 1; k <= key; k++) {
          if (!b.guard().mightContain(k)) {
            falseNegatives++;
          }
        }
        leasedChecks += leased ? BATCH : 0;
      }
      long endMessages = a.endMessagesSent() - endsBefore;
      System.out.println(
          "batches "
              + batches
              + " of "
              + BATCH
              + ": sent in one message "
              + sentBatches
              + ", in more than one "
              + overSent
              + ", false negatives on B "
              + falseNegatives
              + ", checks while B was leased "
              + leasedChecks
              + ", end messages "
              + endMessages
              + " for "
              + batches * BATCH
              + " ends");
      assertThat(falseNegatives).isZero();
      assertThat(overSent)
          .as("never more than one message per batch to the one other member")
          .isZero();
      assertThat(sentBatches)
          .as("batches that reached B (not vacuous)")
          .isGreaterThanOrEqualTo(BATCHES);
      // the 20 visible() of a batch follow each other within microseconds: all but the first wait
      // for the first's round trip and go together (bound: fewer than a quarter of the ends)
      assertThat(endMessages).as("ends sent in batches").isLessThan(batches * BATCH / 4);
      assertThat(leasedChecks)
          .as("B was leased for many checks, so its answers meant something")
          .isGreaterThanOrEqualTo(BATCHES * BATCH / 2);

      // a batch rolled back: removed, paired, on both members (B leased again first)
      Members.awaitLeased(Duration.ofSeconds(30), a, b);
      long sizeA = a.guard().local().stats().size();
      long sizeB = b.guard().local().stats().size();
      List<PendingEnter<Long>> begun = new ArrayList<>();
      for (int i = 0; i < BATCH; i++) {
        begun.add(a.guard().local().beginEnter(-1_000L - i));
      }
      List<ReplicatedGuard.Enter<Long>> enters = a.guard().replicate(begun);
      assertThat(b.guard().local().stats().size()).isEqualTo(sizeB + BATCH);
      for (ReplicatedGuard.Enter<Long> e : enters) {
        e.abort().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      assertThat(b.guard().local().stats().size()).isEqualTo(sizeB);
      assertThat(a.guard().local().stats().size()).isEqualTo(sizeA);
      assertThat(b.openRemoteWrites()).isZero();
    }
  }
}
