package io.github.cuckooguard.benchmarks.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Time for a member to join a group whose guard holds {@code -Dkeys} (default 1,000,000) keys: from
 * a peer's dump (the peer-dump join) and from a scan of its own KeySource. A plain measurement, not
 * JMH: one member holds the keys, a second member joins, is timed from {@code join()} until it may
 * answer "absent", is checked (every key answers true) and leaves; the two ways alternate for
 * {@code -Drounds} (default 3) rounds. The KeySource reads a {@code long[]} in memory, the cheapest
 * scan there is: a database scan adds its query time, a dump does not.
 *
 * <pre>
 * java -Dcuckoo.bench.hazelcast.port=6090 -cp benchmarks/target/benchmarks.jar \
 *     io.github.cuckooguard.benchmarks.cluster.JoinTimeMeasurement
 * </pre>
 *
 * (With the JVM flags Hazelcast wants on Java 17: see ClusterWriteBenchmark's fork arguments.)
 */
public final class JoinTimeMeasurement {

  private static final int BASE_PORT = Integer.getInteger("cuckoo.bench.hazelcast.port", 5998);
  private static final int KEYS = Integer.getInteger("keys", 1_000_000);
  private static final int ROUNDS = Integer.getInteger("rounds", 3);

  private JoinTimeMeasurement() {}

  public static void main(String[] args) throws Exception {
    long[] keys = new long[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = 1_000_003L * i + 7;
    }
    AtomicInteger scans = new AtomicInteger();
    KeySource<Long> source =
        action -> {
          scans.incrementAndGet();
          for (long k : keys) {
            action.accept(k);
          }
        };
    String cluster = "cuckoo-join-" + UUID.randomUUID();
    HazelcastInstance first = Hazelcast.newHazelcastInstance(config(cluster));
    CuckooGuard<Long> holder = guard(source);
    for (long k : keys) { // the first member's own writes (it is alone: no round trips)
      try (PendingEnter<Long> e = holder.beginEnter(k)) {
        e.visible();
      }
    }
    HazelcastGuardGroup<Long> peer =
        HazelcastGuardGroup.newBuilder(first, holder).lease(Duration.ofSeconds(2)).join();
    await(peer);
    System.out.println(
        "keys "
            + KEYS
            + ", filter "
            + holder.stats().sizeInBytes()
            + " bytes, load "
            + String.format("%.2f", holder.stats().loadFactor()));
    try {
      for (int round = 0; round < ROUNDS; round++) {
        for (boolean dump : new boolean[] {true, false}) {
          HazelcastInstance member = Hazelcast.newHazelcastInstance(config(cluster));
          int scansBefore = scans.get();
          CuckooGuard<Long> guard = guard(source);
          long start = System.nanoTime();
          HazelcastGuardGroup<Long> joiner =
              HazelcastGuardGroup.newBuilder(member, guard)
                  .lease(Duration.ofSeconds(2))
                  .peerDump(dump)
                  .join();
          await(joiner);
          long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          long misses = 0;
          for (long k : keys) {
            if (!joiner.guard().mightContain(k)) {
              misses++;
            }
          }
          System.out.println(
              (dump ? "peer dump " : "KeySource ")
                  + "join: "
                  + tookMillis
                  + " ms to a lease with a complete filter (rebuild "
                  + guard.stats().lastRebuildDuration().toMillis()
                  + " ms), KeySource scans "
                  + (scans.get() - scansBefore)
                  + ", misses "
                  + misses);
          joiner.close();
          member.shutdown();
        }
      }
    } finally {
      peer.close();
      Hazelcast.shutdownAll();
    }
  }

  private static CuckooGuard<Long> guard(KeySource<Long> source) {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .name("join")
        .expectedInsertions(KEYS)
        .fpp(0.01)
        .keySource(source)
        .build();
  }

  private static void await(HazelcastGuardGroup<Long> group) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!group.mayAnswerAbsent()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(group + " got no lease within 120 s");
      }
      Thread.sleep(1);
    }
  }

  private static Config config(String cluster) {
    Config config = new Config().setClusterName(cluster);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(BASE_PORT).setPortAutoIncrement(true).setPortCount(4);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    for (int p = BASE_PORT; p < BASE_PORT + 4; p++) {
      join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + p);
    }
    return config;
  }
}
