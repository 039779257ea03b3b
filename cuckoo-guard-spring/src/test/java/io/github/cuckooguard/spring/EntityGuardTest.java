package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import io.github.cuckooguard.spring.entity.EntityJpaConfig;
import io.github.cuckooguard.spring.entity.Member;
import io.github.cuckooguard.spring.entity.MemberDao;
import io.github.cuckooguard.spring.entity.MemberLookup;
import io.github.cuckooguard.spring.entity.MemberRepository;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.CountingDataSource;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.TestKeys;
import io.github.cuckooguard.spring.support.TransactionCounter;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @CuckooGuarded(entity = Member.class)} in a real context (Spring Data JPA 4.1, Hibernate
 * 7.4 with cuckoo-guard-hibernate, H2): the repository annotates only its finders, Spring Data's
 * {@code save} and {@code deleteById} are followed by Hibernate, and a definite miss reaches
 * neither Spring Data's transaction nor a connection nor SQL. The table holds rows before the
 * context starts, so Hibernate's warm-up scan must have found them.
 *
 * <p>"Definite miss" ids are checked with the guard first, so a false positive cannot make a test
 * flaky.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EntityGuardTest {

  private static final int EXISTING = 100;

  @AutoClose // after all tests: one context per class (PER_CLASS)
  private AnnotationConfigApplicationContext context;
  private MemberRepository members;
  private MemberLookup lookup;
  private MemberDao dao;
  private HibernateCuckooGuards guards;
  private TransactionTemplate tx;
  private CountingDataSource dataSource;
  private TransactionCounter transactions;
  private Statistics statistics;
  private final TestKeys ids = new TestKeys(10_000);

  @BeforeAll
  void start() throws InterruptedException {
    String url = H2.newUrl();
    EntityJpaConfig.createSchema(url);
    H2.execute(
        url,
        "insert into club_member(id, name) select x, 'member ' || x from system_range(1, "
            + EXISTING
            + ")");
    context = Contexts.start(url, EntityJpaConfig.class);
    members = context.getBean(MemberRepository.class);
    lookup = context.getBean(MemberLookup.class);
    dao = context.getBean(MemberDao.class);
    tx = context.getBean(TransactionTemplate.class);
    dataSource = context.getBean(CountingDataSource.class);
    transactions = context.getBean(TransactionCounter.class);
    SessionFactory sessionFactory =
        context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class);
    statistics = sessionFactory.getStatistics();
    guards = HibernateCuckooGuards.of(sessionFactory);
    assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).as("warm-up").isTrue();
  }

  /** An id with no row for which the entity guard answers "definitely absent". */
  private long definiteMiss() {
    return ids.definiteMiss(id -> guards.mightContain(Member.class, id));
  }

  /** Transactions begun, connections taken and SQL statements prepared, all threads. */
  private record Cost(int transactions, int connections, long statements) {}

  private Cost cost() {
    return new Cost(
        transactions.count(), dataSource.connections(), statistics.getPrepareStatementCount());
  }

  private Cost costOf(Runnable action) {
    Cost before = cost();
    action.run();
    Cost after = cost();
    return new Cost(
        after.transactions() - before.transactions(),
        after.connections() - before.connections(),
        after.statements() - before.statements());
  }

  @Test
  void definiteMissCostsNoTransactionNoConnectionNoSql() {
    long id = definiteMiss();

    Cost guarded =
        costOf(
            () -> {
              assertThat(members.findById(id)).isEmpty();
              assertThat(members.existsById(id)).isFalse();
              assertThat(members.findOneById(id)).as("derived finder by id").isEmpty();
              assertThat(dao.find(id)).as("class-based repository").isNull();
            });
    Cost hibernateOnly = costOf(() -> assertThat(lookup.findById(id)).isEmpty());
    Cost unguarded = costOf(() -> assertThat(lookup.readById(id)).isEmpty());

    assertThat(guarded).isEqualTo(new Cost(0, 0, 0));
    assertThat(hibernateOnly)
        .as("findById guarded by Hibernate alone: no SQL, but Spring Data's transaction")
        .isEqualTo(new Cost(1, 1, 0));
    assertThat(unguarded).as("the derived finder unguarded").isEqualTo(new Cost(0, 1, 1));
  }

  @Test
  void rowsThatExistedAtStartAreFound() {
    for (long id = 1; id <= EXISTING; id++) {
      assertThat(members.findById(id)).as("member %s", id).isPresent();
    }
    assertThat(members.findOneById(7L)).get().extracting(Member::getName).isEqualTo("member 7");
    assertThat(dao.find(8)).isNotNull();
  }

  @Test
  void springDataSaveIsFollowedAndAnUpdateAddsNothing() {
    long id = definiteMiss();

    members.save(new Member(id, "ada"));
    long size = guards.stats(Member.class).guard().size();
    members.save(new Member(id, "ada lovelace"));

    assertThat(members.findById(id)).get().extracting(Member::getName).isEqualTo("ada lovelace");
    assertThat(members.existsById(id)).isTrue();
    assertThat(dao.find(id)).isNotNull();
    assertThat(guards.stats(Member.class).guard().size())
        .as("the second save updated")
        .isEqualTo(size);
  }

  @Test
  void committedDeleteByIdIsShortCircuitedAfterwards() {
    long id = definiteMiss();
    members.save(new Member(id, "gone soon"));

    members.deleteById(id);

    Cost cost =
        costOf(
            () -> {
              assertThat(members.findById(id)).isEmpty();
              assertThat(members.findOneById(id)).isEmpty();
            });
    assertThat(cost).isEqualTo(new Cost(0, 0, 0));
  }

  @Test
  void rolledBackDeleteIsStillFound() {
    long id = definiteMiss();
    members.save(new Member(id, "kept"));

    tx.executeWithoutResult(
        status -> {
          members.deleteById(id);
          members.flush(); // the DELETE ran inside the transaction
          status.setRollbackOnly();
        });

    assertThat(members.findById(id)).isPresent();
    assertThat(members.findOneById(id)).isPresent();
  }

  @Test
  void insideATransactionUnflushedEntitiesAreFoundAndRollbackUndoes() {
    long id = definiteMiss();
    long otherMiss = definiteMiss();

    tx.executeWithoutResult(
        status -> {
          members.save(new Member(id, "draft")); // merged into the persistence context, not flushed
          assertThat(members.findById(id)).as("from the persistence context").isPresent();
          assertThat(members.findOneById(id)).as("the query flushes first").isPresent();
          long statements = statistics.getPrepareStatementCount();
          assertThat(members.findById(otherMiss)).isEmpty();
          assertThat(statistics.getPrepareStatementCount())
              .as("a miss inside the transaction is still answered by Hibernate without SQL")
              .isEqualTo(statements);
          status.setRollbackOnly();
        });

    assertThat(costOf(() -> assertThat(members.findById(id)).isEmpty()))
        .isEqualTo(new Cost(0, 0, 0));
  }

  @Test
  void deleteByIdOfAMissingIdChangesNothing() {
    long present = definiteMiss();
    members.save(new Member(present, "stays"));
    long size = guards.stats(Member.class).guard().size();

    members.deleteById(definiteMiss());

    assertThat(guards.stats(Member.class).guard().size()).isEqualTo(size);
    assertThat(members.findById(present)).isPresent();
  }
}
