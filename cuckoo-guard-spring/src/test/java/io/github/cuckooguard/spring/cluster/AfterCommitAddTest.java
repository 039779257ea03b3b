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
 * A guarded add on instance A made in another transaction's {@code afterCommit} (an
 * {@code @TransactionalEventListener(phase = AFTER_COMMIT)}), while instance B rebuilds between A's
 * completion callbacks and the manager's cleanup, which is what commits that add's row. The
 * transaction's batch never sends the enter (its {@code beforeCommit} had passed); it used to be
 * entered on B, late, and ended at once at A's {@code afterCompletion}, so B's rebuild, whose scan
 * could not see the uncommitted row, swapped in a filter without it, and B answered "definitely
 * absent" for the committed row (9 of 30 keys in one run; the others were still in flight on B when
 * it scanned). Now the enter reaches B before the row commits and stays in flight there until A's
 * transaction released its connection. Two application instances (two contexts, two embedded
 * Hazelcast members on 127.0.0.1), one H2 database.
 */
class AfterCommitAddTest {

  private static final int KEYS = 30;

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void anAddInAfterCommitSurvivesARebuildOnTheOtherInstanceBeforeItsRowCommits() throws Exception {
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

      List<Long> ids = new ArrayList<>();
      for (long id = 5_000; ids.size() < KEYS; id++) {
        if (!guardB.mightContain(id)) { // a false positive of B's filter would prove nothing
          ids.add(id);
        }
      }
      List<Long> falseNegatives = new ArrayList<>();
      long other = 900_000;
      for (long id : ids) {
        long first = other++;
        boolean[] rebuiltBeforeCommit = new boolean[1];
        tx.executeWithoutResult(
            status -> {
              assertThat(onA.insert(new User(first, "u" + first))).isTrue();
              TransactionSynchronizationManager.registerSynchronization(
                  new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                      assertThat(onA.insert(new User(id, "late " + id))).isTrue();
                      TransactionSynchronizationManager.registerSynchronization(
                          new TransactionSynchronization() {
                            @Override
                            public void afterCompletion(int s) {
                              // after the guard's callback, before the cleanup commits the row
                              guardB.rebuild().join();
                              rebuiltBeforeCommit[0] = !H2.committedRowExists(url, id);
                            }
                          });
                    }
                  });
            });
        assertThat(rebuiltBeforeCommit[0])
            .as("B's rebuild scanned while row %s was uncommitted", id)
            .isTrue();
        assertThat(H2.committedRowExists(url, id)).as("row %s committed", id).isTrue();
        if (onB.findById(id) == null) {
          falseNegatives.add(id);
        }
      }
      System.out.printf(
          "AfterCommitAddTest: %d adds in afterCommit, B rebuilt before each commit, %d false"
              + " negatives on B %s%n",
          ids.size(), falseNegatives.size(), falseNegatives);
      assertThat(falseNegatives).as("B's finds of committed rows").isEmpty();
      Await.until(
          "the late enters ended on both instances",
          () -> guardA.inFlight() == 0 && guardB.inFlight() == 0);
      for (long id : ids) {
        assertThat(guardB.mightContain(id)).as("B's filter has %s", id).isTrue();
      }
    }
  }
}
