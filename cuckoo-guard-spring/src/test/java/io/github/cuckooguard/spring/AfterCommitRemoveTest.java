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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A guarded remove called from another transaction's {@code afterCommit} (the place of an
 * {@code @TransactionalEventListener(phase = AFTER_COMMIT)}). Synchronization and the "actual
 * transaction" flag are still on there, so the guard's completion callback is registered and gets
 * the outer transaction's {@code afterCompletion(STATUS_COMMITTED)}; but that commit came before
 * the delete, which stays uncommitted on the still-bound connection until the manager's cleanup
 * (its auto-commit reset) commits it. Found by review: the fingerprint was taken in between, and
 * another thread's guarded find answered "definitely absent" for a committed row (20 of 20 keys).
 * The check runs in a synchronization registered after the guard's, i.e. inside that window, so the
 * test is deterministic. Single instance, H2.
 */
class AfterCommitRemoveTest {

  private static final int KEYS = 20;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void removeInAfterCommitIsNotTakenWhileTheRowIsStillCommitted() throws Exception {
    assertThat(run(false))
        .as(
            "rows committed and visible to other connections that a guarded find reported definitely absent (of %d)",
            KEYS)
        .isEmpty();
  }

  /** Control: the same remove in its own transaction (what Spring's Javadoc asks for) is right. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void removeInItsOwnTransactionFromAfterCommitIsRight() throws Exception {
    assertThat(run(true)).isEmpty();
  }

  @SuppressWarnings("unchecked")
  private static List<Long> run(boolean ownTransaction) throws Exception {
    String url = H2.newUrl();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, JdbcConfig.class)) {
      JdbcUserRepository users = context.getBean(JdbcUserRepository.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());

      TestKeys keys = new TestKeys(7);
      List<Long> falseNegatives = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        long id = keys.next();
        long other = keys.next();
        assertThat(users.insert(new User(id, "u" + id))).isTrue();
        tx.executeWithoutResult(
            status -> {
              assertThat(users.insert(new User(other, "u" + other))).isTrue();
              TransactionSynchronizationManager.registerSynchronization(
                  new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                      if (ownTransaction) {
                        TransactionTemplate inner =
                            new TransactionTemplate(tx.getTransactionManager());
                        inner.setPropagationBehavior(TransactionTemplate.PROPAGATION_REQUIRES_NEW);
                        assertThat((Boolean) inner.execute(st -> users.deleteById(id))).isTrue();
                      } else {
                        assertThat(users.deleteById(id)).isTrue();
                      }
                      TransactionSynchronizationManager.registerSynchronization(
                          new TransactionSynchronization() {
                            @Override
                            public void afterCompletion(int s) {
                              // another thread, its own connection, no transaction
                              CompletableFuture.runAsync(
                                      () -> {
                                        boolean present = H2.committedRowExists(url, id); // truth
                                        boolean found = users.findById(id) != null; // guarded
                                        if (present && !found) {
                                          synchronized (falseNegatives) {
                                            falseNegatives.add(id);
                                          }
                                        }
                                      })
                                  .join();
                            }
                          });
                    }
                  });
            });
        // after the cleanup the delete is committed: the window is between the two
        assertThat(H2.committedRowExists(url, id)).isFalse();
      }
      return falseNegatives;
    }
  }
}
