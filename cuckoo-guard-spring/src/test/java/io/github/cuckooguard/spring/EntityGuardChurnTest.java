package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import io.github.cuckooguard.spring.entity.EntityJpaConfig;
import io.github.cuckooguard.spring.entity.Member;
import io.github.cuckooguard.spring.entity.MemberLookup;
import io.github.cuckooguard.spring.entity.MemberRepository;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.ShadowChurn;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several threads save (Spring Data's upsert), delete by id and find a small set of ids through a
 * {@code @CuckooGuarded(entity = Member.class)} repository, committing and rolling back, while
 * another thread rebuilds the entity guard over and over. A shadow truth records, per id, whether a
 * committed row exists and whether a write is in progress; a find of an id that had a committed row
 * for the whole call must find it (no false negative), and a find of an id that had none must not
 * (the truth is right).
 *
 * <p>The truth of an id changes in the writer's {@code afterCompletion}, after Hibernate has
 * applied the commit to the guard; until then the id counts as being written and its finds are not
 * checked. Seeds are fixed; thread interleavings are not, and the assertions hold for every
 * interleaving.
 */
class EntityGuardChurnTest {

  private static final int IDS = 48;
  private static final int WORKERS = 4;
  private static final int OPS_PER_WORKER = 400;

  private MemberRepository members;

  @Test
  void committedIdsAreNeverShortCircuited() throws Exception {
    try (AnnotationConfigApplicationContext context =
        Contexts.start(H2.newUrl(), EntityJpaConfig.class)) {
      members = context.getBean(MemberRepository.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      HibernateCuckooGuards guards =
          HibernateCuckooGuards.of(
              context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class));
      assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).isTrue();
      long missesBefore = guards.stats(Member.class).guard().definiteMisses();

      // The truth changes after Hibernate has applied the commit to the guard.
      ShadowChurn churn =
          new ShadowChurn(IDS, tx, Ordered.LOWEST_PRECEDENCE, this::find, this::change);
      churn.run(
          WORKERS,
          OPS_PER_WORKER,
          2_000,
          () -> guards.rebuild(Member.class).get(30, TimeUnit.SECONDS),
          2);

      assertThat(churn.falseNegatives()).as("finds of committed ids answered \"absent\"").isZero();
      assertThat(churn.phantomRows())
          .as("finds of absent ids that found a row (shadow truth broken)")
          .isZero();
      assertThat(churn.checkedFinds()).as("finds checked against the truth").isGreaterThan(200);
      assertThat(churn.commits()).isGreaterThan(200);
      assertThat(churn.rollbacks()).isGreaterThan(50);
      assertThat(churn.rebuilds()).as("rebuilds during the churn").isGreaterThan(5);
      assertThat(guards.stats(Member.class).guard().definiteMisses() - missesBefore)
          .as("finds short-circuited during the churn")
          .isGreaterThan(100);

      assertThat(guards.awaitWarmUp(Duration.ofSeconds(30))).isTrue();
      MemberLookup lookup = context.getBean(MemberLookup.class);
      for (int id = 0; id < IDS; id++) {
        boolean present = churn.present(id);
        assertThat(lookup.readById((long) id).isPresent())
            .as("row %s matches the truth", id)
            .isEqualTo(present);
        if (present) {
          assertThat(members.findById((long) id)).as("guarded find of %s", id).isPresent();
        }
      }
    }
  }

  /** A guarded find of an id, by {@code findById} or by a derived query (chosen at random). */
  private boolean find(int id, SplittableRandom random) {
    boolean byDerivedQuery = random.nextBoolean();
    Optional<Member> found =
        byDerivedQuery ? members.findOneById((long) id) : members.findById((long) id);
    return found.isPresent();
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
