package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import io.github.cuckooguard.spring.entity.EntityJpaConfig;
import io.github.cuckooguard.spring.entity.Member;
import io.github.cuckooguard.spring.entity.MemberLookup;
import io.github.cuckooguard.spring.entity.MemberRepository;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several threads save (Spring Data's upsert), delete by id and find a small set of ids through
 * a {@code @CuckooGuarded(entity = Member.class)} repository, committing and rolling back, while
 * another thread rebuilds the entity guard over and over. A shadow truth records, per id, whether
 * a committed row exists and whether a write is in progress; a find of an id that had a
 * committed row for the whole call must find it (no false negative), and a find of an id that
 * had none must not (the truth is right).
 *
 * <p>The truth of an id changes in the writer's {@code afterCompletion}, after Hibernate has
 * applied the commit to the guard; until then the id counts as being written and its finds are
 * not checked. Seeds are fixed; thread interleavings are not, and the assertions hold for every
 * interleaving.
 */
class EntityGuardChurnTest {

  private static final int IDS = 48;
  private static final int WORKERS = 4;
  private static final int OPS_PER_WORKER = 400;

  /** The shadow truth of one id. */
  private record IdState(boolean present, boolean writing, int version) {
    IdState startWrite() {
      return new IdState(present, true, version + 1);
    }

    IdState endWrite(boolean nowPresent) {
      return new IdState(nowPresent, false, version + 1);
    }
  }

  private final AtomicReferenceArray<IdState> truth = new AtomicReferenceArray<>(IDS);
  private final AtomicInteger checkedFinds = new AtomicInteger();
  private final AtomicInteger falseNegatives = new AtomicInteger();
  private final AtomicInteger phantomRows = new AtomicInteger();
  private final AtomicInteger commits = new AtomicInteger();
  private final AtomicInteger rollbacks = new AtomicInteger();

  private MemberRepository members;
  private TransactionTemplate tx;

  @Test
  void committedIdsAreNeverShortCircuited() throws Exception {
    for (int id = 0; id < IDS; id++) {
      truth.set(id, new IdState(false, false, 0));
    }
    try (AnnotationConfigApplicationContext context = Contexts.start(H2.newUrl(), EntityJpaConfig.class)) {
      members = context.getBean(MemberRepository.class);
      tx = context.getBean(TransactionTemplate.class);
      HibernateCuckooGuards guards =
          HibernateCuckooGuards.of(context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class));
      assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).isTrue();
      long missesBefore = guards.stats(Member.class).guard().definiteMisses();

      ExecutorService pool = Executors.newFixedThreadPool(WORKERS + 1);
      AtomicBoolean done = new AtomicBoolean();
      AtomicInteger rebuilds = new AtomicInteger();
      Future<?> rebuilder = pool.submit(() -> {
        while (!done.get()) {
          guards.rebuild(Member.class).get(30, TimeUnit.SECONDS);
          rebuilds.incrementAndGet();
          Thread.sleep(2);
        }
        return null;
      });
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        SplittableRandom random = new SplittableRandom(2_000 + w);
        workers.add(pool.submit(() -> work(random)));
      }
      for (Future<?> worker : workers) {
        worker.get(120, TimeUnit.SECONDS);
      }
      done.set(true);
      rebuilder.get(60, TimeUnit.SECONDS);
      pool.shutdown();

      assertThat(falseNegatives.get()).as("finds of committed ids answered \"absent\"").isZero();
      assertThat(phantomRows.get()).as("finds of absent ids that found a row (shadow truth broken)").isZero();
      assertThat(checkedFinds.get()).as("finds checked against the truth").isGreaterThan(200);
      assertThat(commits.get()).isGreaterThan(200);
      assertThat(rollbacks.get()).isGreaterThan(50);
      assertThat(rebuilds.get()).as("rebuilds during the churn").isGreaterThan(5);
      assertThat(guards.stats(Member.class).guard().definiteMisses() - missesBefore)
          .as("finds short-circuited during the churn").isGreaterThan(100);

      assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).isTrue();
      MemberLookup lookup = context.getBean(MemberLookup.class);
      for (int id = 0; id < IDS; id++) {
        boolean present = truth.get(id).present();
        assertThat(lookup.readById((long) id).isPresent()).as("row %s matches the truth", id).isEqualTo(present);
        if (present) {
          assertThat(members.findById((long) id)).as("guarded find of %s", id).isPresent();
        }
      }
    }
  }

  private void work(SplittableRandom random) {
    for (int op = 0; op < OPS_PER_WORKER; op++) {
      int id = random.nextInt(IDS);
      if (random.nextInt(10) < 4) {
        find(id, random.nextBoolean());
      } else {
        write(id, random.nextInt(3), random.nextInt(4) != 0);
      }
    }
  }

  private void find(int id, boolean byDerivedQuery) {
    IdState before = truth.get(id);
    Optional<Member> found = byDerivedQuery ? members.findOneById((long) id) : members.findById((long) id);
    IdState after = truth.get(id);
    if (before == after && !before.writing()) {
      checkedFinds.incrementAndGet();
      if (before.present() && found.isEmpty()) {
        falseNegatives.incrementAndGet();
      } else if (!before.present() && found.isPresent()) {
        phantomRows.incrementAndGet();
      }
    }
  }

  private void write(int id, int variant, boolean commit) {
    IdState state = truth.get(id);
    if (state.writing() || !truth.compareAndSet(id, state, state.startWrite())) {
      return;
    }
    IdState writing = truth.get(id);
    boolean[] nowPresent = {state.present()};
    tx.executeWithoutResult(status -> {
      TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
        @Override
        public void afterCompletion(int completion) {
          boolean committed = completion == STATUS_COMMITTED;
          (committed ? commits : rollbacks).incrementAndGet();
          truth.set(id, writing.endWrite(committed ? nowPresent[0] : state.present()));
        }
      });
      nowPresent[0] = change(id, state.present(), variant);
      if (!commit) {
        status.setRollbackOnly();
      }
    });
  }

  /** One of three changes of an id; returns whether a row exists afterwards in this transaction. */
  private boolean change(long id, boolean present, int variant) {
    switch (variant) {
      case 0 -> {
        if (present) {
          members.deleteById(id);
          return false;
        }
        members.save(new Member(id, "member " + id));
        return true;
      }
      case 1 -> {
        if (present) { // delete, then insert the same id again
          members.deleteById(id);
          members.flush();
          members.save(new Member(id, "again " + id));
          return true;
        }
        members.save(new Member(id, "brief " + id));
        members.flush();
        members.deleteById(id);
        return false;
      }
      default -> {
        members.save(new Member(id, "upsert " + id)); // an update if present, an insert if not
        members.flush();
        return true;
      }
    }
  }
}
