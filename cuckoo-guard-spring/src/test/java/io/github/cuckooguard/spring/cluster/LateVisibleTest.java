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
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The guarded add whose row becomes visible before its enter reached the group: an add made inside
 * another synchronization's {@code beforeCommit}. Spring runs the {@code beforeCommit} callbacks of
 * the synchronizations registered when the commit began, so the guard's per-transaction batch,
 * registered by that add, is never sent before the commit: the row commits while instance B's
 * filter lacks the key. The guard's {@code lateVisible} path then enters the key on every instance
 * after the commit, before the transaction's caller gets control back. Two application instances
 * (two contexts, two embedded Hazelcast members on 127.0.0.1) on one H2 database.
 *
 * <p>Asserts, per key: B did not have it at A's commit (so the late path is what is tested, not the
 * batch), and B's guarded find returns the row right after A's transaction returned (0 false
 * negatives). Fails if {@code lateVisible} only ends the enter locally: B then answers "absent" for
 * every such row.
 */
class LateVisibleTest {

  private static final int KEYS = 50;

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void anAddCommittedBeforeItsEnterWasSentIsEnteredOnTheOtherInstanceBeforeTheCallerGoesOn()
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
                        // Joins the committing transaction; its batch is registered too late.
                        inserted[0] = onA.insert(new User(id, "late " + id));
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
          "LateVisibleTest: %d adds committed before their enter was sent, %d already on B at"
              + " commit, %d false negatives on B %s%n",
          ids.size(), seenOnBAtCommit, falseNegatives, examples);
      assertThat(seenOnBAtCommit)
          .as("keys B had at A's commit (the batch was sent after all: not the late path)")
          .isZero();
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
                      public void beforeCommit(boolean readOnly) {
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
