package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.TestKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Guarded adds whose transaction's commit the guard cannot wait for, with a rebuild scanning before
 * that commit: an add made in another transaction's {@code afterCommit} (its row commits only with
 * the manager's cleanup, after every {@code afterCompletion}) and an add inside a transaction of a
 * manager set to {@code SYNCHRONIZATION_NEVER} (its row commits when the caller's transaction does,
 * after the method returned). The enter used to end when the guard heard of the outer commit or
 * when the method returned; a rebuild scanning between that and the row's commit did not see the
 * row and swapped in a filter without it, so after the commit the guard answered "definitely
 * absent" for a committed row (every key, both ways: 20 of 20 each). The enter now stays in flight
 * until the transaction's resources are released, so the rebuild keeps its fingerprint.
 * Deterministic: the rebuild runs inside the window. Single instance, H2, a key scan on its own
 * connection.
 */
class LateAddTest {

  private static final int KEYS = 20;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void addInAfterCommitSurvivesARebuildBeforeItsRowCommits() {
    String url = H2.newUrl();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, JdbcConfig.class)) {
      JdbcUserRepository users = context.getBean(JdbcUserRepository.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());

      TestKeys keys = new TestKeys(11);
      List<Long> falseNegatives = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        long id = keys.next();
        long other = keys.next();
        boolean[] scannedBeforeCommit = new boolean[1];
        tx.executeWithoutResult(
            status -> {
              assertThat(users.insert(new User(other, "u" + other))).isTrue();
              TransactionSynchronizationManager.registerSynchronization(
                  new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                      assertThat(users.insert(new User(id, "u" + id))).isTrue();
                      TransactionSynchronizationManager.registerSynchronization(
                          new TransactionSynchronization() {
                            @Override
                            public void afterCompletion(int s) {
                              // after the guard's afterCompletion, before the cleanup commits
                              // the row: a rebuild whose scan (its own connection) misses it
                              guard.rebuild().join();
                              scannedBeforeCommit[0] = !H2.committedRowExists(url, id);
                            }
                          });
                    }
                  });
            });
        assertThat(scannedBeforeCommit[0])
            .as("the rebuild scanned while row %s was uncommitted", id)
            .isTrue();
        assertThat(users.rowExists(id)).as("row %s committed with the cleanup", id).isTrue();
        if (users.findById(id) == null) {
          falseNegatives.add(id);
        }
      }
      assertThat(falseNegatives)
          .as("committed rows reported definitely absent (of %d)", KEYS)
          .isEmpty();
      Await.until("the late enters ended", () -> guard.inFlight() == 0);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void addInAnUnsynchronizedTransactionSurvivesARebuildBeforeItsCommit() {
    String url = H2.newUrl();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, JdbcConfig.class)) {
      JdbcUserRepository users = context.getBean(JdbcUserRepository.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      context
          .getBean(DataSourceTransactionManager.class)
          .setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);

      TestKeys keys = new TestKeys(12);
      List<Long> falseNegatives = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        long id = keys.next();
        tx.executeWithoutResult(
            status -> {
              assertThat(users.insert(new User(id, "u" + id))).isTrue();
              guard.rebuild().join(); // scans on its own connection: the row is uncommitted
              assertThat(H2.committedRowExists(url, id)).isFalse();
            });
        assertThat(users.rowExists(id)).as("row %s committed", id).isTrue();
        if (users.findById(id) == null) {
          falseNegatives.add(id);
        }
      }
      assertThat(falseNegatives)
          .as("committed rows reported definitely absent (of %d)", KEYS)
          .isEmpty();
      Await.until("the enters ended after their commits", () -> guard.inFlight() == 0);

      // rolled back: the enter ends too (a spare fingerprint until the next rebuild)
      long rolledBack = keys.next();
      tx.executeWithoutResult(
          status -> {
            assertThat(users.insert(new User(rolledBack, "u" + rolledBack))).isTrue();
            assertThat(guard.inFlight()).as("in flight until the transaction ends").isEqualTo(1);
            status.setRollbackOnly();
          });
      assertThat(users.rowExists(rolledBack)).isFalse();
      Await.until("the enter ended after the rollback", () -> guard.inFlight() == 0);
    }
  }
}
