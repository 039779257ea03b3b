package io.github.cuckooguard.spring.cluster;

import static io.github.cuckooguard.spring.support.StartupFailures.startupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * {@code @EnableCuckooGuard(clusterMinimumMembers = 2)} with real contexts and embedded Hazelcast
 * members on 127.0.0.1: one instance alone refuses guarded adds before the method runs and passes
 * through; with a second instance up, adds on either are found on the other. Values outside [1,
 * 1000] fail the start.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MinimumMembersTest {

  /** Fails if the attribute is not passed to the group: the lone instance's add then succeeds. */
  @Test
  @SuppressWarnings("unchecked")
  void aloneBelowMinimumMembersAnAddFailsAndWritesNothingAndTwoInstancesWrite() {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a =
          cluster.context(url, cluster.member(), ClusterConfigs.MinimumTwo.class);
      ClusterUserRepository onA = a.getBean(ClusterUserRepository.class);
      CallCounter bodiesOnA = a.getBean(CallCounter.class);
      CuckooGuard<Object> guardA = a.getBean("members", CuckooGuard.class);

      assertThatThrownBy(() -> onA.insert(new User(1L, "alone")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("must not commit")
          .hasStackTraceContaining("fewer than minimumMembers (2)");
      assertThat(bodiesOnA.writes()).as("the method ran").isZero();
      assertThat(onA.rowExists(1L)).isFalse();
      // Alone below minimumMembers A holds no lease: its finds of keys its filter lacks still run
      // the method (pass-through).
      int checked = 0;
      for (long id = -1; id >= -20; id--) {
        if (!guardA.mightContain(id)) {
          int finds = bodiesOnA.finds();
          assertThat(onA.findById(id)).isNull();
          assertThat(bodiesOnA.finds())
              .as("A's find of %s ran the method", id)
              .isEqualTo(finds + 1);
          checked++;
        }
      }
      assertThat(checked).as("keys A's filter lacks").isPositive();

      AnnotationConfigApplicationContext b =
          cluster.context(url, cluster.member(), ClusterConfigs.MinimumTwo.class);
      ClusterUserRepository onB = b.getBean(ClusterUserRepository.class);
      CallCounter bodiesOnB = b.getBean(CallCounter.class);
      Await.until(
          "both instances answer absent from their filters",
          () -> answersAbsent(onA, bodiesOnA) && answersAbsent(onB, bodiesOnB));

      int falseNegatives = 0;
      for (long id = 1; id <= 100; id++) {
        ClusterUserRepository writer = id % 2 == 0 ? onA : onB;
        ClusterUserRepository reader = id % 2 == 0 ? onB : onA;
        assertThat(writer.insert(new User(id, "u" + id))).isTrue();
        if (reader.findById(id) == null) {
          falseNegatives++;
        }
      }
      assertThat(falseNegatives).isZero();
    }
  }

  private static boolean answersAbsent(ClusterUserRepository users, CallCounter bodies) {
    int before = bodies.finds();
    users.findById(-42L);
    return bodies.finds() == before;
  }

  @Test
  void minimumMembersBelowTheRangeFailsTheStart() {
    String message =
        startupFailure(() -> Contexts.start(H2.newUrl(), ClusterConfigs.MinimumZero.class));
    assertThat(message)
        .contains("@EnableCuckooGuard(clusterMinimumMembers = 0)")
        .contains("[1, 1000]")
        .contains("not 0");
  }

  @Test
  void minimumMembersAboveTheRangeFailsTheStart() {
    String message =
        startupFailure(() -> Contexts.start(H2.newUrl(), ClusterConfigs.MinimumTooMany.class));
    assertThat(message)
        .contains("@EnableCuckooGuard(clusterMinimumMembers = 1001)")
        .contains("[1, 1000]")
        .contains("not 1001");
  }
}
