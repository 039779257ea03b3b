package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.MigrationListener;
import com.hazelcast.partition.MigrationState;
import com.hazelcast.partition.ReplicaMigrationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Embedded Hazelcast members on loopback (multicast and auto-detection off, TCP-IP join), each with
 * its own guarded provider around its own {@link HazelcastMemberCachingProvider}. The cluster is
 * shared by the tests of this class to keep start-up (about 3 s) to once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HazelcastClusterTest {

  private static final String CLUSTER = "cuckoo-guard-" + UUID.randomUUID();
  private static final List<HazelcastInstance> MEMBERS = new ArrayList<>();
  private static final List<GuardedCachingProvider> PROVIDERS = new ArrayList<>();

  private static HazelcastInstance memberA;
  private static HazelcastInstance memberB;

  @BeforeAll
  static void startCluster() {
    memberA = startMember();
    memberB = startMember();
  }

  @AfterAll
  static void stopCluster() {
    PROVIDERS.forEach(GuardedCachingProvider::close);
    MEMBERS.forEach(member -> member.getLifecycleService().terminate());
  }

  private static HazelcastInstance startMember() {
    Config config = new Config().setClusterName(CLUSTER);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network = config.getNetworkConfig().setPort(5810).setPortAutoIncrement(true);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1");
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    MEMBERS.add(member);
    return member;
  }

  /** A guarded manager on {@code member}: two members in one JVM need two provider instances. */
  private static CacheManager guardedManager(HazelcastInstance member) {
    GuardedCachingProvider provider =
        new GuardedCachingProvider(new HazelcastMemberCachingProvider());
    PROVIDERS.add(provider);
    return provider.getCacheManager(
        provider.getDefaultURI(),
        provider.getDefaultClassLoader(),
        HazelcastCachingProvider.propertiesByInstanceItself(member));
  }

  private static MutableConfiguration<Long, String> config() {
    return new MutableConfiguration<Long, String>().setTypes(Long.class, String.class);
  }

  @Test
  @Order(1)
  void everyMembersGuardKnowsAWriteWhenThePutReturnsAndARemovalLeavesEveryMember() {
    GuardedCache<Long, String> onA =
        (GuardedCache<Long, String>) guardedManager(memberA).createCache("events", config());
    GuardedCache<Long, String> onB =
        (GuardedCache<Long, String>)
            guardedManager(memberB).getCache("events", Long.class, String.class);
    assertThat(onB).isNotNull();
    await(
        "both guards read the cluster's cache", () -> !onA.isPassThrough() && !onB.isPassThrough());

    // the guards joined one guard group: a put returns once every member's guard has the key
    for (long k = 0; k < 300; k++) {
      onA.put(k, "from A " + k);
      assertThat(onA.mightContain(k)).as("key %d on A, right after A's put returned", k).isTrue();
      assertThat(onB.mightContain(k)).as("key %d on B, right after A's put returned", k).isTrue();
    }
    for (long k = 300; k < 400; k++) {
      onB.put(k, "from B " + k);
      assertThat(onB.mightContain(k)).as("key %d on B, right after B's put returned", k).isTrue();
      assertThat(onA.mightContain(k)).as("key %d on A, right after B's put returned", k).isTrue();
    }
    assertThat(onB.get(42L)).isEqualTo("from A 42");
    assertThat(onA.get(342L)).isEqualTo("from B 342");

    onA.removeAll(LongStream.range(0, 100).boxed().collect(java.util.stream.Collectors.toSet()));
    assertThat(LongStream.range(100, 400).allMatch(onB::mightContain))
        .as("nothing present is ever reported absent")
        .isTrue();
    long removedAbsent = LongStream.range(0, 100).filter(k -> !onB.mightContain(k)).count();
    assertThat(removedAbsent)
        .as("A's removals left B's filter too (fpp 0.01: a few may collide)")
        .isGreaterThan(90);
    long misses = LongStream.range(10_000, 11_000).filter(k -> !onB.mightContain(k)).count();
    assertThat(misses).as("B short-circuits keys nobody wrote (fpp 0.01)").isGreaterThan(950);
    assertThat(LongStream.range(10_000, 10_100).mapToObj(onB::get).allMatch(v -> v == null))
        .isTrue();
  }

  @Test
  @Order(2)
  void aMemberThatLeavesPutsTheGuardInPassThroughUntilItHasReadTheClustersKeysAgain() {
    GuardedCache<Long, String> onB =
        (GuardedCache<Long, String>) guardedManager(memberB).createCache("departures", config());
    AtomicBoolean passThroughWhenTold = new AtomicBoolean();
    // The wiring an application adds: a member that leaves (and the migrations that follow) may
    // take events with it, so the guard stops answering "absent" until it has rebuilt.
    memberB
        .getCluster()
        .addMembershipListener(
            new MembershipListener() {
              @Override
              public void memberAdded(MembershipEvent event) {}

              @Override
              public void memberRemoved(MembershipEvent event) {
                onB.markStale("member left: " + event.getMember());
                passThroughWhenTold.set(onB.isPassThrough());
              }
            });
    memberB
        .getPartitionService()
        .addMigrationListener(
            new MigrationListener() {
              @Override
              public void migrationStarted(MigrationState state) {}

              @Override
              public void migrationFinished(MigrationState state) {
                onB.markStale("partitions migrated");
              }

              @Override
              public void replicaMigrationCompleted(ReplicaMigrationEvent event) {}

              @Override
              public void replicaMigrationFailed(ReplicaMigrationEvent event) {}
            });

    HazelcastInstance memberC = startMember();
    Cache<Long, String> onC =
        guardedManager(memberC).getCache("departures", Long.class, String.class);
    await("B's guard read the cache", () -> !onB.isPassThrough());
    for (long k = 0; k < 300; k++) {
      onC.put(k, "from C " + k);
    }
    long rebuildsBefore = onB.stats().rebuilds();

    memberC.getLifecycleService().terminate();

    await("B was told that C left", passThroughWhenTold::get);
    await(
        "B rebuilt from the cluster's keys",
        () -> !onB.isPassThrough() && onB.stats().rebuilds() > rebuildsBefore);
    for (long k = 0; k < 300; k++) {
      assertThat(onB.mightContain(k)).as("key %d written by the member that left", k).isTrue();
      assertThat(onB.get(k)).isEqualTo("from C " + k);
    }
  }
}
