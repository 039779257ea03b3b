package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.OwnTransactionRepository;
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
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A guarded add whose method body writes its row in a transaction of its own (a {@code
 * REQUIRES_NEW} template inside the body, which the startup check cannot see), called inside a
 * caller's transaction that then rolls back. The row is committed by the inner transaction; the
 * guard's completion callback, registered in the caller's transaction, heard its rollback and
 * aborted the enter: 20 of 20 committed rows reported definitely absent. Spring suspends the
 * caller's synchronizations when the inner transaction begins, so the guard's callback hears that
 * the write may belong to another transaction, and the enter ends when the method returns instead.
 * Single instance, H2.
 */
class OwnTransactionAddTest {

  private static final int KEYS = 20;

  @Configuration(proxyBeanMethods = false)
  @Import({JdbcConfig.class, OwnTransactionRepository.class})
  static class Config {}

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void anAddCommittedInItsOwnTransactionSurvivesTheCallersRollback() {
    String url = H2.newUrl();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, Config.class)) {
      OwnTransactionRepository repository = context.getBean(OwnTransactionRepository.class);
      CuckooGuard<Object> guard = context.getBean("own", CuckooGuard.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      Await.until("warm-up of guard 'own'", () -> !guard.isPassThrough());
      TestKeys keys = new TestKeys(5);
      List<Long> falseNegatives = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        long id = keys.next();
        tx.executeWithoutResult(
            status -> {
              assertThat(repository.insertInItsOwnTransaction(id)).isTrue();
              status.setRollbackOnly();
            });
        assertThat(H2.committedRows(url))
            .as("row %s committed by its own transaction", id)
            .isEqualTo(i + 1);
        if (!repository.exists(id)) {
          falseNegatives.add(id);
        }
      }
      assertThat(falseNegatives)
          .as("rows committed by their own transaction reported absent (of %d)", KEYS)
          .isEmpty();
      assertThat(guard.inFlight()).isZero();
    }
  }
}
