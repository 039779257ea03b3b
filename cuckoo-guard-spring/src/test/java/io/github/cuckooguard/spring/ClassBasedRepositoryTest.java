package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.CountingDataSource;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.TestKeys;
import io.github.cuckooguard.spring.support.TransactionCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A class-based repository (JdbcTemplate on H2, {@code @Transactional}) in a real context: what
 * reaches the method, the database and the transaction manager, and what the guard holds. Each test
 * uses its own keys; sizes are compared before and after, so tests do not interfere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClassBasedRepositoryTest {

  @AutoClose // after all tests: one context per class (PER_CLASS)
  private AnnotationConfigApplicationContext context;
  private JdbcUserRepository users;
  private CuckooGuard<Object> guard;
  private TransactionTemplate tx;
  private CountingDataSource dataSource;
  private TransactionCounter transactions;
  private CallCounter calls;
  private final TestKeys keys = new TestKeys(1);

  @BeforeAll
  @SuppressWarnings("unchecked")
  void start() {
    context = Contexts.start(H2.newUrl(), JdbcConfig.class);
    users = context.getBean(JdbcUserRepository.class);
    guard = context.getBean("users", CuckooGuard.class);
    tx = context.getBean(TransactionTemplate.class);
    dataSource = context.getBean(CountingDataSource.class);
    transactions = context.getBean(TransactionCounter.class);
    calls = context.getBean(CallCounter.class);
    Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
  }

  private long size() {
    return guard.stats().size();
  }

  @Test
  void guardIsABeanNamedAfterTheDeclarationWithStats() {
    assertThat(AopUtils.isAopProxy(users)).isTrue();
    assertThat(guard.name()).isEqualTo("users");
    assertThat(context.getBean("users")).isSameAs(guard);
    assertThat(guard.stats().passThrough()).isFalse();
    assertThat(guard.stats().rebuilds()).isGreaterThanOrEqualTo(1); // the warm-up
  }

  @Test
  void definiteMissReturnsTheAbsentValueWithoutCallNorTransactionNorConnection() throws Exception {
    long key = keys.definiteMiss(guard::mightContain);
    int finds = calls.finds();
    int begun = transactions.count();
    int connections = dataSource.connections();
    long misses = guard.stats().definiteMisses();

    assertThat(users.findById(key)).isNull();
    assertThat(users.find(key, "test")).isEmpty();
    assertThat(users.existsById(key)).isFalse();
    List<User> list = users.findAllWithId(key);
    assertThat(list).isEmpty();
    list.add(new User(key, "mutable, like the list the finder returns")); // a fresh ArrayList
    assertThat(users.streamById(key)).isEmpty();
    assertThat(users.findLater(key).get()).isEqualTo(Optional.empty());

    assertThat(calls.finds()).as("finder bodies reached").isEqualTo(finds);
    assertThat(transactions.count()).as("transactions begun").isEqualTo(begun);
    assertThat(dataSource.connections()).as("connections taken").isEqualTo(connections);
    assertThat(guard.stats().definiteMisses() - misses).isEqualTo(6);
  }

  @Test
  void hitRunsTheFinderInItsTransaction() {
    long key = keys.next();
    assertThat(users.insert(new User(key, "ada"))).isTrue();
    int finds = calls.finds();
    int begun = transactions.count();

    assertThat(users.findById(key)).isEqualTo(new User(key, "ada"));
    assertThat(users.find(key, "test")).contains(new User(key, "ada"));
    assertThat(users.existsById(key)).isTrue();

    assertThat(calls.finds() - finds).isEqualTo(3);
    assertThat(transactions.count() - begun).isEqualTo(3);
  }

  @Test
  void absentResultAfterMightContainIsReportedAsFalsePositive() {
    long key = keys.definiteMiss(guard::mightContain);
    guard.keyEntered(key); // a fingerprint without a row: exactly what a false positive looks like
    long falsePositives = guard.stats().falsePositives();
    int finds = calls.finds();

    assertThat(users.findById(key)).isNull();
    assertThat(users.existsById(key)).isFalse();

    assertThat(calls.finds() - finds).isEqualTo(2);
    assertThat(guard.stats().falsePositives() - falsePositives).isEqualTo(2);
    guard.keyLeft(key);
  }

  @Test
  void addHappensBeforeTheWriteAndRollbackUndoesIt() {
    long kept = keys.next();
    users.insert(new User(kept, "kept"));
    long before = size();
    long key = keys.next();

    tx.executeWithoutResult(
        status -> {
          users.insert(new User(key, "rolled back"));
          assertThat(size()).as("added before commit").isEqualTo(before + 1);
          assertThat(users.findById(key)).as("visible to its own transaction").isNotNull();
          assertThat(users.deleteById(kept)).isTrue();
          status.setRollbackOnly();
        });

    assertThat(size()).as("the add undone, the delete never applied").isEqualTo(before);
    assertThat(users.rowExists(key)).isFalse();
    assertThat(users.findById(kept)).as("no false negative after the rollback").isNotNull();
  }

  @Test
  void insertOfAnExistingKeyReportsNothingCreatedAndIsUndoneOnce() {
    long key = keys.next();
    users.insert(new User(key, "first"));
    long before = size();

    assertThat(users.insert(new User(key, "again"))).isFalse();
    assertThat(size()).as("one fingerprint per key").isEqualTo(before);

    tx.executeWithoutResult(
        status -> {
          assertThat(users.insert(new User(key, "again, in a transaction"))).isFalse();
          status.setRollbackOnly();
        });
    assertThat(size()).as("a rollback does not undo an add twice").isEqualTo(before);
    assertThat(users.findById(key)).isEqualTo(new User(key, "first"));
  }

  @Test
  void removeWaitsForTheCommit() {
    long key = keys.next();
    users.insert(new User(key, "gone at commit"));
    long before = size();

    tx.executeWithoutResult(
        status -> {
          assertThat(users.deleteById(key)).isTrue();
          assertThat(size()).as("not removed before commit").isEqualTo(before);
        });

    assertThat(size()).isEqualTo(before - 1);
    assertThat(users.rowExists(key)).isFalse();
  }

  @Test
  void writesStayInFlightUntilTheirTransactionEnds() {
    long key = keys.next();
    tx.executeWithoutResult(
        status -> {
          users.insert(new User(key, "in flight"));
          assertThat(guard.inFlight()).as("the enter, until the commit").isEqualTo(1);
        });
    assertThat(guard.inFlight()).as("after the commit").isZero();
    assertThat(users.findById(key)).isEqualTo(new User(key, "in flight"));

    tx.executeWithoutResult(
        status -> {
          assertThat(users.deleteById(key)).isTrue();
          assertThat(guard.inFlight()).as("the leave, until the commit").isEqualTo(1);
        });
    assertThat(guard.inFlight()).as("after the commit").isZero();

    assertThat(users.deleteById(key)).as("nothing to delete").isFalse();
    assertThatThrownBy(() -> users.remove(key)).isInstanceOf(EmptyResultDataAccessException.class);
    assertThat(guard.inFlight()).as("cancelled leaves").isZero();
  }

  @Test
  void removeRolledBackRemovesNothing() {
    long key = keys.next();
    users.insert(new User(key, "stays"));
    long before = size();

    tx.executeWithoutResult(
        status -> {
          assertThat(users.deleteById(key)).isTrue();
          status.setRollbackOnly();
        });

    assertThat(size()).isEqualTo(before);
    assertThat(users.findById(key)).isEqualTo(new User(key, "stays"));
  }

  @Test
  void removeOutsideATransactionAppliesWhenTheMethodReturns() {
    long key = keys.next();
    users.insert(new User(key, "x"));
    long before = size();

    assertThat(users.deleteById(key)).isTrue(); // runs in the repository's own transaction

    assertThat(size()).isEqualTo(before - 1);
  }

  @Test
  void removeIsIssuedOnlyWhenTheMethodReportsARemoval() {
    long missing = keys.definiteMiss(guard::mightContain);
    long before = size();

    assertThat(users.deleteById(missing)).isFalse();
    assertThat(users.deleteCounting(missing)).isZero();
    assertThatThrownBy(() -> users.remove(missing))
        .isInstanceOf(EmptyResultDataAccessException.class);

    assertThat(size()).as("no unpaired remove").isEqualTo(before);
  }

  @Test
  void countingAndVoidRemovesRemoveWhenTheyReportIt() {
    long a = keys.next();
    long b = keys.next();
    users.insert(new User(a, "a"));
    users.insert(new User(b, "b"));
    long before = size();

    assertThat(users.deleteCounting(a)).isEqualTo(1);
    users.remove(b);

    assertThat(size()).isEqualTo(before - 2);
  }

  @Test
  void failedVoidAddKeepsItsFingerprintUnlessTheCallersTransactionRollsBack() {
    long key = keys.next();
    users.create(new User(key, "created"));
    long before = size();

    // No transaction at the call: the write may have happened, so the add stays (a leak).
    assertThatThrownBy(() -> users.create(new User(key, "duplicate")))
        .isInstanceOf(DuplicateKeyException.class);
    assertThat(size()).isEqualTo(before + 1);

    // In the caller's transaction, which the exception rolls back: undone.
    assertThatThrownBy(
            () -> tx.executeWithoutResult(status -> users.create(new User(key, "duplicate"))))
        .isInstanceOf(DuplicateKeyException.class);
    assertThat(size()).isEqualTo(before + 1);
  }

  @Test
  void addWhoseKeyCannotBeComputedFailsBeforeTheWrite() {
    int writes = calls.writes();
    long before = size();

    assertThatThrownBy(() -> users.create(null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "@GuardedAdd on " + JdbcUserRepository.class.getName() + ".create(User)")
        .hasMessageContaining("key \"#a0.id()\" failed to evaluate")
        .hasMessageContaining("the method was not called");

    assertThat(calls.writes()).isEqualTo(writes);
    assertThat(size()).isEqualTo(before);
  }

  @Test
  void keyTypesOfOneValueShareAFingerprint() {
    long key = keys.next();
    users.insert(new User(key, "long id"));
    List<Object> sameKey = new ArrayList<>(List.of(key, (int) key, (short) key));
    for (Object k : sameKey) {
      assertThat(guard.mightContain(k)).as("key %s of %s", k, k.getClass()).isTrue();
    }
  }
}
