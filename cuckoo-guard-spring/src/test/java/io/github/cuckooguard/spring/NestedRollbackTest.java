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
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Guarded writes inside a {@code NESTED} scope (a savepoint of the caller's transaction) that is
 * rolled back while the outer transaction commits, and a programmatic savepoint rolled back to. The
 * completion callback of a guarded remove heard only the outer commit and took the key's
 * fingerprint, while the rollback to the savepoint had restored the row: 40 of 40 kept rows (20
 * each way) reported definitely absent. Spring tells each synchronization of the savepoints created
 * and rolled back to; a rollback to one created before the write means the write was undone, and
 * the remove keeps the copy. Single instance, H2 (savepoints through DataSourceTransactionManager).
 */
class NestedRollbackTest {

  private static final int KEYS = 20;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void writesUndoneByASavepointRollbackLeaveNoFalseNegative() {
    try (AnnotationConfigApplicationContext context =
        Contexts.start(H2.newUrl(), JdbcConfig.class)) {
      JdbcUserRepository users = context.getBean(JdbcUserRepository.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      TransactionTemplate nested = new TransactionTemplate(tx.getTransactionManager());
      nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      TestKeys keys = new TestKeys(3);
      List<Long> falseNegatives = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        long id = keys.next();
        long programmatic = keys.next();
        assertThat(users.insert(new User(id, "u" + id))).isTrue();
        assertThat(users.insert(new User(programmatic, "u" + programmatic))).isTrue();
        tx.executeWithoutResult(
            outer -> {
              nested.executeWithoutResult(
                  inner -> {
                    assertThat(users.deleteById(id)).isTrue();
                    inner.setRollbackOnly(); // back to the savepoint; the outer commits
                  });
              Object savepoint = outer.createSavepoint();
              assertThat(users.deleteById(programmatic)).isTrue();
              outer.rollbackToSavepoint(savepoint);
            });
        for (long kept : new long[] {id, programmatic}) {
          assertThat(users.rowExists(kept)).as("row %s kept", kept).isTrue();
          if (users.findById(kept) == null) {
            falseNegatives.add(kept);
          }
        }
      }
      assertThat(falseNegatives).as("kept rows reported absent (of %d)", 2 * KEYS).isEmpty();

      // control: a savepoint taken after the delete and rolled back to does not undo it, nor does
      // a nested scope that commits: both removes take their copies
      long afterSavepoint = keys.next();
      long nestedCommitted = keys.next();
      assertThat(users.insert(new User(afterSavepoint, "a"))).isTrue();
      assertThat(users.insert(new User(nestedCommitted, "n"))).isTrue();
      long before = guard.stats().size();
      tx.executeWithoutResult(
          outer -> {
            assertThat(users.deleteById(afterSavepoint)).isTrue();
            Object savepoint = outer.createSavepoint();
            outer.rollbackToSavepoint(savepoint);
            nested.executeWithoutResult(
                inner -> assertThat(users.deleteById(nestedCommitted)).isTrue());
          });
      assertThat(users.rowExists(afterSavepoint)).isFalse();
      assertThat(users.rowExists(nestedCommitted)).isFalse();
      assertThat(guard.stats().size())
          .as("fingerprints after two committed deletes")
          .isEqualTo(before - 2);

      // an add undone by a savepoint rollback: no row, its copy a spare (a false positive)
      long undoneAdd = keys.next();
      tx.executeWithoutResult(
          outer ->
              nested.executeWithoutResult(
                  inner -> {
                    assertThat(users.insert(new User(undoneAdd, "x"))).isTrue();
                    inner.setRollbackOnly();
                  }));
      assertThat(users.rowExists(undoneAdd)).isFalse();
      assertThat(guard.mightContain(undoneAdd)).isTrue();
      assertThat(guard.inFlight()).isZero();
    }
  }
}
