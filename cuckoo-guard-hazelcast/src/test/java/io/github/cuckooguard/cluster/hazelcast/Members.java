package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Embedded members in this JVM on 127.0.0.1: TCP-IP join on a random port range (other test runs
 * may share the machine), multicast and auto-detection off, one cluster name per test class.
 */
final class Members implements AutoCloseable {

  static final int EXECUTOR_THREADS = 4;

  /**
   * Longer than the default: on 2 shared cores a 300 ms lease with a 150 ms ack timeout lapses
   * often (correct, but members then pass through and rebuild, and the tests would measure little).
   */
  static final Duration LEASE = Duration.ofMillis(1_000);

  private final String cluster = "cuckoo-guard-cluster-" + UUID.randomUUID();

  /**
   * Ports 5900-5963 (or from {@code -Dcuckoo.test.hazelcast.port} on: a range of 8 × {@code
   * -Dcuckoo.test.hazelcast.blocks}, default 8 blocks) belong to this module's tests; each cluster
   * takes one block of {@value #PORTS}.
   */
  static final int PORTS = 8;

  static final int BLOCKS = Integer.getInteger("cuckoo.test.hazelcast.blocks", 8);

  private static final int FIRST_PORT = Integer.getInteger("cuckoo.test.hazelcast.port", 5900);

  private static final AtomicInteger NEXT_BLOCK =
      new AtomicInteger(ThreadLocalRandom.current().nextInt(BLOCKS));
  private final int basePort = nextBasePort();
  private final List<HazelcastInstance> started = new ArrayList<>();
  private final List<HazelcastGuardGroup<?>> groups = new ArrayList<>();

  /**
   * The first port of a fresh block in 5900-5963 (blocks rotate, so a lingering socket of the last
   * test is not reused at once).
   */
  static int nextBasePort() {
    return FIRST_PORT + PORTS * Math.floorMod(NEXT_BLOCK.getAndIncrement(), BLOCKS);
  }

  HazelcastInstance start() {
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config(cluster, basePort));
    started.add(member);
    return member;
  }

  String cluster() {
    return cluster;
  }

  int basePort() {
    return basePort;
  }

  static Config config(String cluster, int basePort) {
    Config config = MemberJvms.loopbackConfig(cluster, basePort, PORTS);
    config.getExecutorConfig("cuckoo-guard").setPoolSize(EXECUTOR_THREADS);
    return config;
  }

  /** A guard named "ids" over {@code source} on {@code member}, joined to its group. */
  HazelcastGuardGroup<Long> group(HazelcastInstance member, Set<Long> source) {
    return group(member, source, LEASE);
  }

  /** The same with another lease. */
  HazelcastGuardGroup<Long> group(HazelcastInstance member, Set<Long> source, Duration lease) {
    HazelcastGuardGroup<Long> group = group(member, action -> source.forEach(action), lease);
    groups.add(group);
    return group;
  }

  static HazelcastGuardGroup<Long> group(HazelcastInstance member, KeySource<Long> source) {
    return group(member, source, LEASE);
  }

  static HazelcastGuardGroup<Long> group(
      HazelcastInstance member, KeySource<Long> source, Duration lease) {
    return group(member, source, lease, true);
  }

  /** The same, joining from a peer's dump or not. */
  static HazelcastGuardGroup<Long> group(
      HazelcastInstance member, KeySource<Long> source, Duration lease, boolean peerDump) {
    return group(member, source, lease, peerDump, b -> b);
  }

  /** The same, with test hooks set on the group's builder by {@code hooks}. */
  static HazelcastGuardGroup<Long> group(
      HazelcastInstance member,
      KeySource<Long> source,
      Duration lease,
      boolean peerDump,
      UnaryOperator<HazelcastGuardGroup.Builder<Long>> hooks) {
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .name("ids")
            .expectedInsertions(400_000)
            .fpp(0.001)
            .keySource(source)
            .build();
    return hooks
        .apply(HazelcastGuardGroup.newBuilder(member, guard).lease(lease).peerDump(peerDump))
        .join();
  }

  static void awaitLeased(Duration within, HazelcastGuardGroup<?>... groups)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    for (HazelcastGuardGroup<?> g : groups) {
      while (!g.mayAnswerAbsent()) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError(g + " got no lease within " + within);
        }
        Thread.sleep(10);
      }
    }
  }

  @Override
  public void close() {
    groups.forEach(
        g -> {
          try {
            g.close();
          } catch (RuntimeException e) {
            // member already gone
          }
        });
    started.forEach(m -> m.getLifecycleService().terminate());
  }
}
