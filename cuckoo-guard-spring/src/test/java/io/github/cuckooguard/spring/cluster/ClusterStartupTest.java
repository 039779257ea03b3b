package io.github.cuckooguard.spring.cluster;

import static io.github.cuckooguard.spring.support.StartupFailures.startupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** How a context decides to cluster its guards, and the start failures of a wrong setting. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterStartupTest {

  @Test
  void aNamedMemberThatDoesNotExistFailsTheStart() {
    String message =
        startupFailure(() -> Contexts.start(H2.newUrl(), ClusterConfigs.NamesMissing.class));
    assertThat(message)
        .contains("hazelcastInstance = \"noSuchMember\"")
        .contains("there is no bean named 'noSuchMember'");
  }

  @Test
  void aNamedBeanThatIsNoMemberFailsTheStart() {
    String message =
        startupFailure(() -> Contexts.start(H2.newUrl(), ClusterConfigs.NamesNoMember.class));
    assertThat(message)
        .contains("the bean 'h2Url' is a")
        .contains("not a com.hazelcast.core.HazelcastInstance");
  }

  @Test
  void severalMembersAndNoneNamedFailTheStart() {
    try (ClusterMembers cluster = new ClusterMembers()) {
      HazelcastInstance member = cluster.member();
      String message =
          startupFailure(
              () ->
                  Contexts.start(
                      H2.newUrl(),
                      c -> {
                        c.registerBean("first", HazelcastInstance.class, () -> member);
                        c.registerBean("second", HazelcastInstance.class, () -> member);
                      },
                      ClusterConfigs.Clustered.class));
      assertThat(message)
          .contains("2 HazelcastInstance beans [first, second]")
          .contains("@EnableCuckooGuard(hazelcastInstance = \"…\")");

      try (AnnotationConfigApplicationContext named =
          Contexts.start(
              H2.newUrl(),
              c -> {
                c.registerBean("first", HazelcastInstance.class, () -> member);
                c.registerBean("second", HazelcastInstance.class, () -> member);
              },
              ClusterConfigs.NamesSecond.class)) {
        assertThat(named.isRunning()).isTrue();
        assertThat(groupsOn(member)).as("the group of guard 'members' on the member").isOne();
      }
    }
  }

  /** Without a HazelcastInstance bean nothing clusters and no member is started. */
  @Test
  void withoutAMemberTheGuardsStayLocal() {
    int membersBefore = Hazelcast.getAllHazelcastInstances().size();
    try (AnnotationConfigApplicationContext context =
        Contexts.start(H2.newUrl(), ClusterConfigs.Clustered.class)) {
      ClusterUserRepository users = context.getBean(ClusterUserRepository.class);
      CallCounter calls = context.getBean(CallCounter.class);
      Await.until(
          "the warm-up",
          () -> {
            int before = calls.finds();
            users.findById(-1L);
            return calls.finds() == before;
          });
      assertThat(users.insert(new User(1L, "one"))).isTrue();
      assertThat(users.findById(1L)).isNotNull();
      assertThat(Hazelcast.getAllHazelcastInstances()).hasSize(membersBefore);
    }
  }

  /**
   * Whether the group "spring:members" is registered on the member: HazelcastGuardGroup keeps its
   * groups by name in the member's user context, under this key.
   */
  private static long groupsOn(HazelcastInstance member) {
    Object groups =
        member
            .getUserContext()
            .get("io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup.registry");
    return groups instanceof Map<?, ?> map && map.containsKey("spring:members") ? 1 : 0;
  }
}
