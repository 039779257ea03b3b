package io.github.cuckooguard.hibernate;

import static io.github.cuckooguard.hibernate.Db.awaitWarmUp;
import static io.github.cuckooguard.hibernate.Db.inTx;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.model.Book;
import io.github.cuckooguard.hibernate.model.Plain;
import java.util.List;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Finds through a guarded Session against H2. Ids of each test are disjoint. A "no SQL" check on
 * an absent id could only fail by a false positive of that one id: with at most a few hundred
 * keys in a filter sized for 10,000 at fpp 0.01, the chance is below 1e-4 per check.
 */
class GuardedFindTest {

  static SessionFactory sf;
  static SqlCounter sql;

  @BeforeAll
  static void start() {
    sf = Db.shared();
    sql = Db.sharedCounter();
    awaitWarmUp(sf);
  }

  private Object find(Class<?> type, Object id) {
    return inTx(sf, (Session s) -> s.find(type, id));
  }

  private List<String> statementsOf(Runnable action) {
    return sql.during(action);
  }

  @Test
  void findOfMissingIdReturnsNullWithoutSql() {
    inTx(sf, (Session s) -> s.persist(new Book(1, "one")));
    Object[] found = new Object[1];
    List<String> statements = statementsOf(() -> found[0] = find(Book.class, 1_000_001L));
    assertThat(found[0]).isNull();
    assertThat(statements).isEmpty();
    assertThat(HibernateCuckooGuards.of(sf).stats(Book.class).shortCircuits()).isPositive();
  }

  @Test
  void findOfExistingIdReturnsTheEntity() {
    inTx(sf, (Session s) -> s.persist(new Book(2, "two")));
    Object[] found = new Object[1];
    List<String> statements = statementsOf(() -> found[0] = find(Book.class, 2L));
    assertThat(((Book) found[0]).title).isEqualTo("two");
    assertThat(statements).hasSize(1);
  }

  @Test
  void unguardedEntityAlwaysQueries() {
    List<String> statements = statementsOf(() -> assertThat(find(Plain.class, 77L)).isNull());
    assertThat(statements).hasSize(1);
  }
}
