package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.ShadowChurn;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several threads insert, delete and find a small set of keys through the guarded repository,
 * committing and rolling back, while another thread rebuilds the guard over and over. A shadow
 * truth records, per key, whether a committed row exists and whether a write is in progress; a find
 * of a key that had a committed row for the whole call must reach the database and find it.
 *
 * <p>The shadow state of a key is updated at the very start of the transaction's completion, before
 * the guard's own callbacks run, so the next writer of that key may start while the previous one
 * has not yet delivered its {@code gone()} or its {@code abort()}: the cross-transaction orders a
 * rebuild has to survive. Seeds are fixed; thread interleavings are not, and the assertion (no
 * false negative) holds for every interleaving.
 */
class ConcurrentChurnTest {

  private static final int KEYS = 48;
  private static final int WORKERS = 4;
  private static final int OPS_PER_WORKER = 1_500;

  private JdbcUserRepository users;

  @Test
  @SuppressWarnings("unchecked")
  void committedKeysAreNeverShortCircuited() throws Exception {
    try (AnnotationConfigApplicationContext context =
        Contexts.start(H2.newUrl(), JdbcConfig.class)) {
      users = context.getBean(JdbcUserRepository.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      Await.until("warm-up", () -> !guard.isPassThrough());

      // The truth changes before the guard's gone() and abort() callbacks run.
      ShadowChurn churn =
          new ShadowChurn(
              KEYS,
              tx,
              Ordered.HIGHEST_PRECEDENCE,
              (key, random) -> users.findById(key) != null,
              this::change);
      churn.run(WORKERS, OPS_PER_WORKER, 1_000, () -> guard.rebuild().get(30, TimeUnit.SECONDS), 1);

      assertThat(churn.falseNegatives()).as("finds of committed keys answered \"absent\"").isZero();
      assertThat(churn.phantomRows())
          .as("finds of absent keys that found a row (shadow truth broken)")
          .isZero();
      assertThat(churn.checkedFinds()).as("finds checked against the truth").isGreaterThan(500);
      assertThat(churn.commits()).isGreaterThan(500);
      assertThat(churn.rollbacks()).isGreaterThan(100);
      assertThat(churn.rebuilds()).as("rebuilds during the churn").isGreaterThan(10);
      // Quiescent now: a rebuild (a follow-up of a marked-stale one, or this) turns pass-through
      // off.
      assertThat(guard.inFlight()).as("every enter and leave ended").isZero();
      guard.rebuild().get(30, TimeUnit.SECONDS);
      Await.until("pass-through off after the churn", () -> !guard.isPassThrough());
      for (int k = 0; k < KEYS; k++) {
        boolean present = churn.present(k);
        assertThat(users.rowExists(k)).as("row %s matches the truth", k).isEqualTo(present);
        if (present) {
          assertThat(guard.mightContain((long) k)).as("guard holds key %s", k).isTrue();
        }
      }
    }
  }

  /** One of three changes of a key; returns whether a row exists afterwards in this transaction. */
  private boolean change(int key, boolean present, int variant) {
    User user = new User(key, "user " + key);
    if (present) {
      switch (variant) {
        case 0 -> assertThat(users.deleteById(key)).isTrue();
        case 1 -> {
          assertThat(users.deleteById(key)).isTrue();
          assertThat(users.insert(user)).isTrue();
          return true;
        }
        default -> {
          assertThat(users.insert(user)).as("insert of an existing key").isFalse();
          return true;
        }
      }
      return false;
    }
    switch (variant) {
      case 0 -> {
        assertThat(users.insert(user)).isTrue();
        return true;
      }
      case 1 -> {
        assertThat(users.insert(user)).isTrue();
        assertThat(users.deleteById(key)).isTrue();
      }
      default -> assertThat(users.deleteById(key)).as("delete of a missing key").isFalse();
    }
    return false;
  }
}
