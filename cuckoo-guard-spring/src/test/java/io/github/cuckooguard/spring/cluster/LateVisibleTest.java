package io.github.cuckooguard.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.H2;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Guarded adds made where the guard's per-transaction batch is registered too late for Spring's
 * {@code beforeCommit} callbacks: inside another synchronization's {@code beforeCommit} (Spring
 * runs the {@code beforeCommit} callbacks of the synchronizations registered when the commit
 * began), or inside another synchronization's {@code beforeCompletion}. Two application instances
 * (two contexts, two embedded Hazelcast members on 127.0.0.1) on one H2 database.
 *
 * <ul>
 *   <li>From another {@code beforeCommit}: the batch is sent from its own {@code beforeCompletion},
 *       which Spring calls before the commit, so B has every key at A's commit. Fails without that
 *       callback: B then lacks all of them at the commit.
 *   <li>From another {@code beforeCompletion}: no callback of the batch runs before the commit, so
 *       the row commits while B lacks the key (asserted: this is the late path), and the guard's
 *       {@code lateVisible} path enters it on every instance after the commit, before the
 *       transaction's caller gets control back. Fails if {@code lateVisible} only ends the enter
 *       locally: B then answers "absent" for every such row.
 * </ul>
 *
 * In both, B's guarded find returns every row right after A's transaction returned (0 false
 * negatives).
 */
class LateVisibleTest {

  private static final int KEYS = 50;

  /** Where the add is made, inside another synchronization. */
  enum Phase {
    BEFORE_COMMIT,
    BEFORE_COMPLETION
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void anAddMadeInsideAnotherSynchronizationIsOnTheOtherInstanceBeforeTheCallerGoesOn(Phase phase)
      throws Exception {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a =
          cluster.context(url, cluster.member(), ClusterConfigs.Clustered.class);
      AnnotationConfigApplicationContext b =
          cluster.context(url, cluster.member(), ClusterConfigs.Clustered.class);
      ClusterUserRepository onA = a.getBean(ClusterUserRepository.class);
      ClusterUserRepository onB = b.getBean(ClusterUserRepository.class);
      CallCounter bodiesOnB = b.getBean(CallCounter.class);
      CuckooGuard<Object> guardB = b.getBean("members", CuckooGuard.class);
      TransactionTemplate tx = a.getBean(TransactionTemplate.class);
      Await.until(
          "B's guard answers absent",
          () -> {
            int before = bodiesOnB.finds();
            onB.findById(-42L);
            return bodiesOnB.finds() == before;
          });

      List<Long> ids = new ArrayList<>();
      for (long id = 1_000; ids.size() < KEYS; id++) {
        if (!guardB.mightContain(id)) { // a false positive of B's filter would prove nothing
          ids.add(id);
        }
      }
      int seenOnBAtCommit = 0;
      int falseNegatives = 0;
      List<Long> examples = new ArrayList<>();
      for (long id : ids) {
        boolean[] inserted = new boolean[1];
        boolean[] onBAtCommit = new boolean[1];
        tx.executeWithoutResult(
            status ->
                TransactionSynchronizationManager.registerSynchronization(
                    new TransactionSynchronization() {
                      @Override
                      public void beforeCommit(boolean readOnly) {
                        if (phase == Phase.BEFORE_COMMIT) {
                          inserted[0] = onA.insert(new User(id, "late " + id));
                        }
                      }

                      @Override
                      public void beforeCompletion() {
                        if (phase == Phase.BEFORE_COMPLETION) {
                          inserted[0] = onA.insert(new User(id, "late " + id));
                        }
                      }

                      @Override
                      public void afterCommit() {
                        onBAtCommit[0] = guardB.mightContain(id);
                      }
                    }));
        assertThat(inserted[0]).isTrue();
        assertThat(onA.rowExists(id)).as("row %s committed", id).isTrue();
        if (onBAtCommit[0]) {
          seenOnBAtCommit++;
        }
        if (onB.findById(id) == null) {
          falseNegatives++;
          if (examples.size() < 5) {
            examples.add(id);
          }
        }
      }
      System.out.printf(
          "LateVisibleTest %s: %d adds, %d already on B at commit, %d false negatives on B %s%n",
          phase, ids.size(), seenOnBAtCommit, falseNegatives, examples);
      if (phase == Phase.BEFORE_COMMIT) {
        assertThat(seenOnBAtCommit)
            .as("keys B had at A's commit (sent from the batch's beforeCompletion)")
            .isEqualTo(KEYS);
      } else {
        assertThat(seenOnBAtCommit)
            .as("keys B had at A's commit (the batch was sent after all: not the late path)")
            .isZero();
      }
      assertThat(falseNegatives).as("B's finds of committed rows, e.g. %s", examples).isZero();
      for (long id : ids) {
        assertThat(guardB.mightContain(id)).as("B's filter has %s", id).isTrue();
      }
    }
  }

  /**
   * The committing thread is interrupted before the commit's completion callbacks run (a caller's
   * timeout): the late enter still reaches B, so B finds the committed row, and the thread's
   * interrupt status is kept. Fails when the late enter gives up on the interrupt: it is then
   * aborted on both instances, only A marks itself stale, and B, holding its lease, answers
   * "absent" for the committed row.
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void aLateEnterIsNotGivenUpWhenTheCommittingThreadIsInterrupted() throws Exception {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a =
          cluster.context(url, cluster.member(), ClusterConfigs.Clustered.class);
      AnnotationConfigApplicationContext b =
          cluster.context(url, cluster.member(), ClusterConfigs.Clustered.class);
      ClusterUserRepository onA = a.getBean(ClusterUserRepository.class);
      ClusterUserRepository onB = b.getBean(ClusterUserRepository.class);
      CallCounter bodiesOnB = b.getBean(CallCounter.class);
      CuckooGuard<Object> guardA = a.getBean("members", CuckooGuard.class);
      CuckooGuard<Object> guardB = b.getBean("members", CuckooGuard.class);
      TransactionTemplate tx = a.getBean(TransactionTemplate.class);
      Await.until(
          "B's guard answers absent",
          () -> {
            int before = bodiesOnB.finds();
            onB.findById(-42L);
            return bodiesOnB.finds() == before;
          });
      int falseNegatives = 0;
      int keys = 0;
      for (long id = 5_000; keys < 10; id++) {
        if (guardA.mightContain(id) || guardB.mightContain(id)) {
          continue;
        }
        keys++;
        long key = id;
        tx.executeWithoutResult(
            status ->
                TransactionSynchronizationManager.registerSynchronization(
                    new TransactionSynchronization() {
                      @Override
                      public void beforeCompletion() { // too late for the batch: the late path
                        onA.insert(new User(key, "late"));
                      }

                      @Override
                      public void afterCommit() {
                        Thread.currentThread().interrupt();
                      }
                    }));
        assertThat(Thread.interrupted()).as("the interrupt status was kept").isTrue();
        assertThat(onA.rowExists(key)).isTrue();
        if (onB.findById(key) == null) {
          falseNegatives++;
        }
      }
      System.out.printf(
          "LateVisibleTest: %d late adds with the committing thread interrupted, %d false"
              + " negatives on B%n",
          keys, falseNegatives);
      assertThat(falseNegatives).as("B's finds of committed rows").isZero();
    }
  }
}
