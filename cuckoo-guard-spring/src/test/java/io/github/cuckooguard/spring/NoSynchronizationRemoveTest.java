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
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A guarded remove inside a real transaction whose manager runs without transaction synchronization
 * ({@code SYNCHRONIZATION_NEVER}, a public setting of Spring's transaction managers): the guard
 * cannot wait for the commit, so it must keep the key's copy. Found by review: the remove was taken
 * for one made without a transaction and its {@code gone()} ran when the method returned; the
 * transaction then rolled back, the row stayed, and the guard answered "definitely absent" for it
 * (20 of 20 keys). Deterministic, single instance.
 */
class NoSynchronizationRemoveTest {

  private static final int KEYS = 20;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void removeInAnUnsynchronizedTransactionKeepsTheCopyAndARemoveWithoutOneTakesIt() {
    try (AnnotationConfigApplicationContext context =
        Contexts.start(H2.newUrl(), JdbcConfig.class)) {
      JdbcUserRepository users = context.getBean(JdbcUserRepository.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      context
          .getBean(DataSourceTransactionManager.class)
          .setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);

      TestKeys keys = new TestKeys(1);
      List<Long> falseNegatives = new ArrayList<>();
      List<Long> committed = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        long id = keys.next();
        assertThat(users.insert(new User(id, "u" + id))).isTrue();
        tx.executeWithoutResult(
            status -> {
              assertThat(users.deleteById(id)).isTrue();
              status.setRollbackOnly();
            });
        assertThat(users.rowExists(id)).as("the rollback kept row %s", id).isTrue(); // truth
        if (users.findById(id) == null) {
          falseNegatives.add(id);
        }
      }
      assertThat(falseNegatives)
          .as("rows kept by a rollback that the guard reported definitely absent (of %d)", KEYS)
          .isEmpty();

      for (int i = 0; i < KEYS; i++) {
        // committed in such a transaction: the copy is kept too (readers saw the row until the
        // commit), a spare fingerprint until the next rebuild
        long other = keys.next();
        assertThat(users.insert(new User(other, "u" + other))).isTrue();
        long before = guard.stats().size();
        tx.executeWithoutResult(status -> assertThat(users.deleteById(other)).isTrue());
        assertThat(users.rowExists(other)).isFalse();
        assertThat(guard.stats().size())
            .as("fingerprints after a committed delete")
            .isEqualTo(before);
        committed.add(other);
      }

      // without a transaction (each statement auto-commits) a remove still takes its copy
      long id = keys.next();
      assertThat(users.insert(new User(id, "u" + id))).isTrue();
      long before = guard.stats().size();
      assertThat(users.deleteById(id)).isTrue();
      assertThat(guard.stats().size())
          .as("fingerprints after an auto-commit delete")
          .isEqualTo(before - 1);

      // the spares go with the next rebuild
      guard.rebuild().join();
      for (long gone : committed) {
        assertThat(users.rowExists(gone)).isFalse();
      }
      assertThat(guard.stats().size())
          .as("fingerprints after a rebuild: the %d rows that stayed", KEYS)
          .isEqualTo(KEYS);
    }
  }
}
