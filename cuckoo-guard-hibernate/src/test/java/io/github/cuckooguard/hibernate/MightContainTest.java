package io.github.cuckooguard.hibernate;

import static io.github.cuckooguard.hibernate.Db.awaitWarmUp;
import static io.github.cuckooguard.hibernate.Db.inTx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.hibernate.model.Animal;
import io.github.cuckooguard.hibernate.model.Book;
import io.github.cuckooguard.hibernate.model.Cat;
import io.github.cuckooguard.hibernate.model.Dog;
import io.github.cuckooguard.hibernate.model.OrderLine;
import io.github.cuckooguard.hibernate.model.Plain;
import io.github.cuckooguard.hibernate.model.Review;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link HibernateCuckooGuards#mightContain}, the guard's answer outside any session, on its own
 * factory: it follows exactly the writes that {@code Session.find} is short-circuited by. An
 * "absent" assertion can only fail through a false positive of that one id, in a filter sized for
 * 10,000 rows holding a handful: far below 1e-4 per check.
 */
class MightContainTest {

  static SessionFactory sf;
  static HibernateCuckooGuards guards;
  static SqlCounter sql = new SqlCounter();

  @BeforeAll
  static void start() {
    sf =
        Db.configuration(
                Db.newUrl(),
                sql,
                Map.of(),
                Book.class,
                Review.class,
                OrderLine.class,
                Animal.class,
                Dog.class,
                Cat.class,
                Plain.class)
            .buildSessionFactory();
    guards = HibernateCuckooGuards.of(sf);
    awaitWarmUp(sf);
  }

  @AfterAll
  static void stop() {
    sf.close();
  }

  @Test
  void followsCommittedInsertsAndDeletes() {
    assertThat(guards.mightContain(Book.class, 100L)).isFalse();

    inTx(sf, (Session s) -> s.persist(new Book(100, "hundred")));
    assertThat(guards.mightContain(Book.class, 100L)).isTrue();

    inTx(
        sf,
        (Session s) -> {
          s.remove(s.find(Book.class, 100L));
          s.flush();
          assertThat(guards.mightContain(Book.class, 100L))
              .as("delete flushed, not committed")
              .isTrue();
        });
    assertThat(guards.mightContain(Book.class, 100L)).as("delete committed").isFalse();
  }

  @Test
  void flushedInsertCountsBeforeCommitAndLeavesOnRollback() {
    try (Session s = sf.openSession()) {
      s.beginTransaction();
      s.persist(new Book(200, "two hundred"));
      assertThat(guards.mightContain(Book.class, 200L))
          .as("persisted, not flushed: only the persistence context knows it")
          .isFalse();
      s.flush();
      assertThat(guards.mightContain(Book.class, 200L)).as("INSERT ran, uncommitted").isTrue();
      s.getTransaction().rollback();
    }
    assertThat(guards.mightContain(Book.class, 200L)).as("rolled back").isFalse();
  }

  @Test
  void rolledBackDeleteStaysContained() {
    inTx(sf, (Session s) -> s.persist(new Book(300, "three hundred")));
    try (Session s = sf.openSession()) {
      s.beginTransaction();
      s.remove(s.find(Book.class, 300L));
      s.flush();
      s.getTransaction().rollback();
    }
    assertThat(guards.mightContain(Book.class, 300L)).isTrue();
  }

  @Test
  void compositeIdsAndHierarchies() {
    inTx(sf, (Session s) -> s.persist(new OrderLine(7, 1, 3)));
    UUID dog = UUID.randomUUID();
    inTx(sf, (Session s) -> s.persist(new Dog(dog, "rex")));

    assertThat(guards.mightContain(OrderLine.class, new OrderLine.Key(7, 1))).isTrue();
    assertThat(guards.mightContain(OrderLine.class, new OrderLine.Key(7, 2))).isFalse();
    assertThat(guards.mightContain(Animal.class, dog)).isTrue();
    assertThat(guards.mightContain(Cat.class, dog)).as("one guard per hierarchy").isTrue();
    assertThat(guards.mightContain(Dog.class, UUID.randomUUID())).isFalse();
  }

  @Test
  void answersMaybeWhenItCannotComputeAKey() {
    assertThat(guards.mightContain(Book.class, "400")).as("not the id type").isTrue();

    Book book = new Book(500, "five hundred");
    inTx(sf, (Session s) -> s.persist(book));
    inTx(sf, (Session s) -> s.persist(new Review(s.find(Book.class, 500L), 1, "good")));
    assertThat(guards.mightContain(Review.class, new Review.Key(book, 2)))
        .as("an id holding an association needs a session to become a key")
        .isTrue();
    assertThat(
            sql.during(
                () ->
                    assertThat(
                            inTx(
                                sf,
                                (Session s) ->
                                    s.find(
                                        Review.class, new Review.Key(s.find(Book.class, 500L), 2))))
                        .isNull()))
        .as("Session.find is still short-circuited: one select, of the book")
        .hasSize(1);
  }

  @Test
  void passesThroughWhileStale() {
    CountDownLatch scanMayRun = new CountDownLatch(1);
    Thread test = Thread.currentThread();
    sql.hook(
        statement -> {
          if (Thread.currentThread() != test && statement.contains("from Book")) {
            awaitQuietly(scanMayRun);
          }
        });
    try {
      guards.markStale(Book.class);
      assertThat(guards.mightContain(Book.class, 600L)).as("rebuild scan held").isTrue();
    } finally {
      sql.hook(statement -> {});
      scanMayRun.countDown();
    }
    awaitWarmUp(sf);
    assertThat(guards.mightContain(Book.class, 600L)).isFalse();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void countsInTheGuardStatsNotInTheSessionFindCounters() {
    EntityGuardStats before = guards.stats(Book.class);

    assertThat(guards.mightContain(Book.class, 700L)).isFalse();

    EntityGuardStats after = guards.stats(Book.class);
    GuardStats guard = after.guard();
    assertThat(guard.lookups()).isEqualTo(before.guard().lookups() + 1);
    assertThat(guard.definiteMisses()).isEqualTo(before.guard().definiteMisses() + 1);
    assertThat(after.finds()).isEqualTo(before.finds());
    assertThat(after.shortCircuits()).isEqualTo(before.shortCircuits());
  }

  @Test
  void isGuardedAndErrors() {
    assertThat(guards.isGuarded(Book.class)).isTrue();
    assertThat(guards.isGuarded(Cat.class)).isTrue();
    assertThat(guards.isGuarded(Plain.class)).isFalse();
    assertThat(guards.isGuarded(String.class)).isFalse();

    assertThatThrownBy(() -> guards.mightContain(Plain.class, 1L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Plain.class.getName() + " is not a guarded entity")
        .hasMessageContaining("@GuardedEntity");
    assertThatThrownBy(() -> guards.mightContain(Book.class, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("id");
    assertThatThrownBy(() -> guards.mightContain(null, 1L))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("entity");
    assertThatThrownBy(() -> guards.isGuarded(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("entity");
    assertThatThrownBy(() -> guards.mightContain(Book.class, "a", 1L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not multi-tenant, but tenant a was given");
  }
}
