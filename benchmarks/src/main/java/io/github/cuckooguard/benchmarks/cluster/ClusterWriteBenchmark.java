package io.github.cuckooguard.benchmarks.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.io.Serial;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Write latency of a guard replicated over three embedded Hazelcast members in the fork's JVM
 * ({@code group=hazelcast-3}: 127.0.0.1, ports 5998-6001, or from {@code
 * -Dcuckoo.bench.hazelcast.port} in the fork's JVM arguments, TCP-IP join, multicast and
 * auto-detection off), against the same guard alone ({@code group=none}). Sample-time mode, so JMH
 * prints p50 and p99.
 *
 * <p>{@code enter*}: one enter, {@code beginEnter} (which waits for the other two members'
 * acknowledgements: one round trip each, in parallel) then {@code visible()} (not awaited). Each
 * writes a fresh key; the key stays, so the filter holds every key the fork wrote (sized for 8 M).
 * With 1 and with 4 writer threads. {@code enterBatch*}: {@value #BATCH} enters begun on the local
 * guard, then replicated together ({@code ReplicatedGuard.replicate}: one message per member for
 * the batch, as the Hibernate integration sends a flush's inserts), then each {@code visible()};
 * one operation is the whole batch, so divide by {@value #BATCH} for a key. {@code mightContain}: a
 * lookup of a present key, local and lock-free in both cases (the replicated guard reads its lease
 * first).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ClusterWriteBenchmark}. Figures taken
 * while other builds run are noise: note the load ({@code uptime}) beside them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "-Xms1g",
      "-Xmx1g",
      "-Djava.net.preferIPv4Stack=true",
      "--add-modules",
      "java.se",
      "--add-exports",
      "java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens",
      "java.base/java.lang=ALL-UNNAMED",
      "--add-opens",
      "java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens",
      "java.management/sun.management=ALL-UNNAMED",
      "--add-opens",
      "jdk.management/com.sun.management.internal=ALL-UNNAMED"
    })
public class ClusterWriteBenchmark {

  private static final int BASE_PORT = Integer.getInteger("cuckoo.bench.hazelcast.port", 5998);

  /** Keys per batch in {@code enterBatch*}: a flush of a few dozen inserts. */
  static final int BATCH = 20;

  @Param({"none", "hazelcast-3"})
  public String group;

  private final List<HazelcastInstance> members = new ArrayList<>();
  private final List<HazelcastGuardGroup<Long>> groups = new ArrayList<>();
  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final AtomicLong nextKey = new AtomicLong();
  private CuckooGuard<Long> local;
  private ReplicatedGuard<Long> replicated;

  @Setup(Level.Trial)
  public void start() throws InterruptedException {
    if (group.equals("none")) {
      local = guard();
      return;
    }
    String cluster = "cuckoo-bench-" + UUID.randomUUID();
    for (int i = 0; i < 3; i++) {
      HazelcastInstance member = Hazelcast.newHazelcastInstance(config(cluster));
      members.add(member);
      groups.add(
          HazelcastGuardGroup.newBuilder(member, guard()).lease(Duration.ofMillis(1_000)).join());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (HazelcastGuardGroup<Long> g : groups) {
      while (!g.mayAnswerAbsent()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(g + " got no lease within 60 s");
        }
        Thread.sleep(10);
      }
    }
    replicated = groups.get(0).guard();
    local = replicated.local();
    // the group's first writes wait out leases granted before it registered: not measured
    ReplicatedGuard.Enter<Long> first = replicated.beginEnter(-1L);
    first.visible();
  }

  private CuckooGuard<Long> guard() {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .name("bench")
        .expectedInsertions(8_000_000)
        .fpp(0.01)
        .keySource(action -> source.forEach(action))
        .build();
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

  @TearDown(Level.Trial)
  public void stop() {
    groups.forEach(HazelcastGuardGroup::close);
    members.forEach(m -> m.getLifecycleService().terminate());
    System.out.println(
        "\nlapses "
            + groups.stream().mapToLong(HazelcastGuardGroup::lapses).sum()
            + ", keys written "
            + nextKey.get());
  }

  private long enter() throws InterruptedException {
    long key = nextKey.incrementAndGet();
    if (replicated == null) {
      PendingEnter<Long> enter = local.beginEnter(key);
      enter.visible();
    } else {
      ReplicatedGuard.Enter<Long> enter = replicated.beginEnter(key);
      enter.visible();
    }
    return key;
  }

  private long enterBatch() throws InterruptedException {
    List<PendingEnter<Long>> begun = new ArrayList<>(BATCH);
    long key = 0;
    for (int i = 0; i < BATCH; i++) {
      key = nextKey.incrementAndGet();
      begun.add(local.beginEnter(key));
    }
    if (replicated == null) {
      for (PendingEnter<Long> enter : begun) {
        enter.visible();
      }
    } else {
      for (ReplicatedGuard.Enter<Long> enter : replicated.replicate(begun)) {
        enter.visible();
      }
    }
    return key;
  }

  @Benchmark
  @Threads(1)
  public long enterBatch1Writer() throws InterruptedException {
    return enterBatch();
  }

  @Benchmark
  @Threads(4)
  public long enterBatch4Writers() throws InterruptedException {
    return enterBatch();
  }

  @Benchmark
  @Threads(1)
  public long enter1Writer() throws InterruptedException {
    return enter();
  }

  @Benchmark
  @Threads(4)
  public long enter4Writers() throws InterruptedException {
    return enter();
  }

  /**
   * The floor under an enter: a no-op task sent by Hazelcast's executor service (the one the group
   * uses, {@code cuckoo-guard}) to each of the two other members, in parallel, and both replies
   * awaited, as a begin is; no guard involved. Only with {@code group=hazelcast-3}.
   */
  @Benchmark
  @Threads(1)
  public int executorRoundTrip1Writer() throws Exception {
    if (members.isEmpty()) {
      return 0;
    }
    IExecutorService executor = members.get(0).getExecutorService("cuckoo-guard");
    Future<Integer> a =
        executor.submitToMember(new Noop(), members.get(1).getCluster().getLocalMember());
    Future<Integer> b =
        executor.submitToMember(new Noop(), members.get(2).getCluster().getLocalMember());
    return a.get() + b.get();
  }

  /** The task of {@link #executorRoundTrip1Writer}: Java-serialized, as the group's tasks are. */
  static final class Noop implements Callable<Integer>, Serializable {
    @Serial private static final long serialVersionUID = 1L;

    @Override
    public Integer call() {
      return 1;
    }
  }

  @Benchmark
  @Threads(1)
  public boolean mightContain() {
    long key = 1 + (System.nanoTime() & 1023);
    return replicated != null ? replicated.mightContain(key) : local.mightContain(key);
  }
}
