package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jpa.AccountRepository;
import io.github.cuckooguard.spring.jpa.JpaConfig;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.CountingDataSource;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.TestKeys;
import io.github.cuckooguard.spring.support.TransactionCounter;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Proxy;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring Data JPA interface repository (Hibernate 7, H2) in a real context: annotations on the
 * interface methods are found through the repository proxy, a definite miss reaches neither Spring
 * Data's transaction nor Hibernate, and the guard follows inserts and deletes with their
 * transactions. The table holds rows before the context starts, so the warm-up runs through the
 * {@code @GuardKeySource} query.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpringDataRepositoryTest {

  private static final int EXISTING = 200;

  @AutoClose // after all tests: one context per class (PER_CLASS)
  private AnnotationConfigApplicationContext context;
  private AccountRepository accounts;
  private CuckooGuard<Object> guard;
  private TransactionTemplate tx;
  private CountingDataSource dataSource;
  private TransactionCounter transactions;
  private Statistics statistics;
  private final TestKeys keys = new TestKeys(10_000);

  @BeforeAll
  @SuppressWarnings("unchecked")
  void start() {
    String url = H2.newUrl();
    JpaConfig.createSchema(url);
    H2.execute(
        url,
        "insert into account(id, name) select x, 'account ' || x from system_range(1, "
            + EXISTING
            + ")");
    context = Contexts.start(url, JpaConfig.class);
    accounts = context.getBean(AccountRepository.class);
    guard = context.getBean("accounts", CuckooGuard.class);
    tx = context.getBean(TransactionTemplate.class);
    dataSource = context.getBean(CountingDataSource.class);
    transactions = context.getBean(TransactionCounter.class);
    statistics =
        context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class).getStatistics();
    Await.until("warm-up of guard 'accounts'", () -> !guard.isPassThrough());
  }

  private long size() {
    return guard.stats().size();
  }

  @Test
  void warmUpLoadedTheRowsThatExistedAtStart() {
    for (long id = 1; id <= EXISTING; id++) {
      assertThat(guard.mightContain(id)).as("account %s", id).isTrue();
    }
    assertThat(accounts.findById(7L)).get().extracting(a -> a.getName()).isEqualTo("account 7");
  }

  @Test
  void definiteMissReachesNeitherTransactionNorConnectionNorSql() {
    assertThat(Proxy.isProxyClass(accounts.getClass())).isTrue();
    long key = keys.definiteMiss(guard::mightContain);
    int begun = transactions.count();
    int connections = dataSource.connections();
    long statements = statistics.getPrepareStatementCount();

    assertThat(accounts.findById(key)).isEmpty();
    assertThat(accounts.existsById(key)).isFalse();
    assertThat(accounts.findAllById(key)).isEmpty();

    assertThat(transactions.count()).as("transactions begun").isEqualTo(begun);
    assertThat(dataSource.connections()).as("connections taken").isEqualTo(connections);
    assertThat(statistics.getPrepareStatementCount()).as("SQL statements").isEqualTo(statements);
  }

  @Test
  void hitRunsTheQuery() {
    long key = keys.next();
    assertThat(accounts.insert(key, "ada")).isEqualTo(1);
    long statements = statistics.getPrepareStatementCount();
    int begun = transactions.count();

    assertThat(accounts.findById(key)).get().extracting(a -> a.getName()).isEqualTo("ada");
    assertThat(accounts.existsById(key)).isTrue();

    assertThat(statistics.getPrepareStatementCount() - statements).isEqualTo(2);
    assertThat(transactions.count() - begun).isEqualTo(2);
  }

  @Test
  void rolledBackInsertIsUndoneAndRolledBackDeleteRemovesNothing() {
    long kept = keys.next();
    accounts.insert(kept, "kept");
    long before = size();
    long key = keys.next();

    tx.executeWithoutResult(
        status -> {
          accounts.insert(key, "rolled back");
          assertThat(accounts.deleteAccount(kept)).isEqualTo(1);
          assertThat(size()).isEqualTo(before + 1);
          status.setRollbackOnly();
        });

    assertThat(size()).isEqualTo(before);
    assertThat(accounts.rowExists(key)).isFalse();
    assertThat(accounts.findById(kept)).as("no false negative after the rollback").isPresent();
  }

  @Test
  void deleteLeavesTheGuardAtCommitAndOnlyWhenARowWasDeleted() {
    long key = keys.next();
    accounts.insert(key, "gone");
    long before = size();

    tx.executeWithoutResult(
        status -> {
          assertThat(accounts.deleteAccount(key)).isEqualTo(1);
          assertThat(size()).as("before commit").isEqualTo(before);
        });
    assertThat(size()).as("after commit").isEqualTo(before - 1);

    assertThat(accounts.deleteAccount(key)).isZero();
    assertThat(size()).as("nothing deleted, nothing removed").isEqualTo(before - 1);
  }
}
