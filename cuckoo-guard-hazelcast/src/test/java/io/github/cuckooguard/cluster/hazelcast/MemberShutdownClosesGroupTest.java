package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.spi.GroupUnavailableException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member that is terminated (or shut down) closes its guard groups: the group's lease thread
 * stops (it used to renew, fail and log a stack trace three times a lease for the life of the JVM),
 * the guard passes through (answers "might contain" for every key: the member can no longer hear
 * the group, so it must not answer "absent"), and writes fail with {@link
 * GroupUnavailableException}. Fails without the group's lifecycle listener: the lease thread is
 * still alive a lease after the termination.
 */
class MemberShutdownClosesGroupTest {

  private static final String NAME = "shutdown-closes";

  @Test
  @Timeout(60)
  void aTerminatedMemberClosesItsGroup() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance first = members.start();
      HazelcastGuardGroup<Long> a = group(first, source);
      HazelcastGuardGroup<Long> b = group(members.start(), source);
      Members.awaitLeased(Duration.ofSeconds(30), a, b);
      assertThat(leaseThreads()).as("lease threads while both run").isEqualTo(2);
      long absent = 42L;
      assertThat(a.guard().mightContain(absent)).as("a leased member answers absent").isFalse();

      first.getLifecycleService().terminate();

      assertThat(a.mayAnswerAbsent())
          .as("the terminated member's group may answer absent")
          .isFalse();
      assertThat(a.guard().mightContain(absent)).as("pass-through after termination").isTrue();
      assertThatThrownBy(() -> a.guard().beginEnter(7L))
          .isInstanceOf(GroupUnavailableException.class);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (leaseThreads() > 1 && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
      assertThat(leaseThreads()).as("lease threads after one member was terminated").isEqualTo(1);
      assertThat(b.mayAnswerAbsent() || waitLeased(b)).as("the other member goes on").isTrue();
    }
  }

  /** A group of its own name, so that its lease thread is told from other tests' groups. */
  private static HazelcastGuardGroup<Long> group(HazelcastInstance member, Set<Long> source) {
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .name(NAME)
            .expectedInsertions(10_000)
            .keySource(source::forEach)
            .build();
    return HazelcastGuardGroup.newBuilder(member, guard).lease(Members.LEASE).join();
  }

  private static boolean waitLeased(HazelcastGuardGroup<Long> g) throws InterruptedException {
    Members.awaitLeased(Duration.ofSeconds(30), g);
    return true;
  }

  private static long leaseThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals("cuckoo-guard-lease-" + NAME))
        .count();
  }
}
