package io.github.cuckooguard.hibernate;

import static io.github.cuckooguard.hibernate.Db.awaitWarmUp;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.model.Book;
import java.util.Map;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code StatelessSession} writes are never missed, on every supported Hibernate line: exactly
 * tracked on 7.x, held in pass-through until a rebuild after their transaction on 6.6, whose events
 * carry no session. Either way a committed row is found, and the guard is back to short circuiting
 * once its transaction completed.
 */
class StatelessWriteNeverMissedTest {

  static SessionFactory sf;
  static SqlCounter counter;
  static HibernateCuckooGuards guards;

  @BeforeAll
  static void start() {
    counter = new SqlCounter();
    sf = Db.configuration(Db.newUrl(), counter, Map.of(), Book.class).buildSessionFactory();
    guards = HibernateCuckooGuards.of(sf);
    awaitWarmUp(sf);
  }

  @AfterAll
  static void stop() {
    sf.close();
  }

  private Book find(long id) {
    try (Session s = sf.openSession()) {
      return s.find(Book.class, id);
    }
  }

  @Test
  void committedStatelessInsertIsFoundAndTheGuardRecoversAfterItsTransaction() {
    try (StatelessSession s = sf.openStatelessSession()) {
      s.beginTransaction();
      s.insert(new Book(1, "stateless"));
      assertThat(find(1)).as("uncommitted, another session").isNull();
      s.getTransaction().commit();
    }
    assertThat(find(1)).as("committed").isNotNull();

    awaitWarmUp(sf); // on 6.6: the hold ended with the transaction, a rebuild saw the row
    assertThat(find(1)).as("committed, after the rebuild").isNotNull();
    assertThat(counter.during(() -> assertThat(find(404)).isNull())).isEmpty();
  }

  @Test
  void rolledBackStatelessInsertLeavesNoRowAndTheGuardRecovers() {
    try (StatelessSession s = sf.openStatelessSession()) {
      s.beginTransaction();
      s.insert(new Book(2, "rolled back"));
      s.getTransaction().rollback();
    }
    assertThat(find(2)).isNull();
    awaitWarmUp(sf);
    assertThat(counter.during(() -> assertThat(find(2)).isNull())).isEmpty();
  }

  @Test
  void statelessInsertOutsideATransactionIsFound() {
    try (StatelessSession s = sf.openStatelessSession()) {
      s.insert(new Book(3, "autocommit"));
    }
    assertThat(find(3)).isNotNull();
    guards.markStale(Book.class); // on 6.6 the application says the write is done
    awaitWarmUp(sf);
    assertThat(find(3)).isNotNull();
    assertThat(counter.during(() -> assertThat(find(405)).isNull())).isEmpty();
  }
}
