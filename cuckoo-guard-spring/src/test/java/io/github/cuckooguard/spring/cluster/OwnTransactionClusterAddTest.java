package io.github.cuckooguard.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.jdbc.OwnTransactionRepository;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.H2;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A clustered guarded add whose body commits its row in a transaction of its own ({@code
 * REQUIRES_NEW} template inside the body), inside a caller's transaction on instance A that then
 * rolls back. The enter used to wait in the caller's batch for its {@code beforeCommit}, so the row
 * was committed while instance B lacked the key, and after the caller's rollback the enter was
 * aborted on both instances: B answered "definitely absent" for the committed row (30 of 30 keys
 * missing on B at the inner commit, 23 of 30 after the rollback, in one run). Spring suspends the
 * caller's synchronizations before the inner transaction begins; the guard sends the enter then, so
 * B has the key before the row commits, and the caller's rollback no longer aborts it. Two
 * application instances (two contexts, two embedded Hazelcast members on 127.0.0.1), one H2.
 */
class OwnTransactionClusterAddTest {

  private static final int KEYS = 30;

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterLeaseMillis = ClusterConfigs.LEASE_MILLIS)
  @Import({ClusterBeans.class, OwnTransactionRepository.class})
  static class Config {}

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void theOtherInstanceHasTheKeyAtTheInnerCommitAndAfterTheCallersRollback() throws Exception {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a = cluster.context(url, cluster.member(), Config.class);
      AnnotationConfigApplicationContext b = cluster.context(url, cluster.member(), Config.class);
      OwnTransactionRepository onA = a.getBean(OwnTransactionRepository.class);
      OwnTransactionRepository onB = b.getBean(OwnTransactionRepository.class);
      CuckooGuard<Object> guardB = b.getBean("own", CuckooGuard.class);
      TransactionTemplate tx = a.getBean(TransactionTemplate.class);
      Await.until("B's guard answers absent", () -> !guardB.mightContain(-42L));

      List<Long> ids = new ArrayList<>();
      for (long id = 7_000; ids.size() < KEYS; id++) {
        if (!guardB.mightContain(id)) { // a false positive of B's filter would prove nothing
          ids.add(id);
        }
      }
      List<Long> missingAtInnerCommit = new ArrayList<>();
      onA.afterInnerCommit(
          id -> {
            if (!guardB.mightContain(id)) {
              missingAtInnerCommit.add(id);
            }
            return true;
          });
      List<Long> falseNegatives = new ArrayList<>();
      for (long id : ids) {
        tx.executeWithoutResult(
            status -> {
              assertThat(onA.insertInItsOwnTransaction(id)).isTrue();
              status.setRollbackOnly();
            });
        assertThat(onA.jdbcRowExists(id))
            .as("row %s committed by its own transaction", id)
            .isTrue();
        if (!onB.exists(id)) {
          falseNegatives.add(id);
        }
      }
      System.out.printf(
          "OwnTransactionClusterAddTest: %d adds, %d missing on B at the inner commit %s, %d false"
              + " negatives on B after the caller's rollback %s%n",
          ids.size(),
          missingAtInnerCommit.size(),
          missingAtInnerCommit,
          falseNegatives.size(),
          falseNegatives);
      assertThat(missingAtInnerCommit).as("keys B lacked when their rows committed").isEmpty();
      assertThat(falseNegatives).as("B's finds of committed rows").isEmpty();
    }
  }
}
