package io.github.cuckooguard.benchmarks.integration;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.CacheConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.jcache.GuardSettings;
import io.github.cuckooguard.jcache.GuardedCache;
import io.github.cuckooguard.jcache.GuardedCachingProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.logging.Logger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * A JCache {@code get} on member B of a two-member embedded Hazelcast cluster, through the
 * cuckoo-guard-jcache's guard and without it: the negative get (a key never written), whose round
 * trip to the key's owner the guard saves, and the positive get, which both make.
 *
 * <p>Both members run in the fork's JVM on 127.0.0.1 (multicast and auto-detection off, TCP-IP join
 * to A's port, a cluster name of their own). Member A creates the cache (plain Hazelcast JCache,
 * {@code Long} keys, {@code String} values, Hazelcast's defaults: binary format, one synchronous
 * backup, no statistics; but no eviction) and writes {@code entries} entries with the even keys
 * {@code 2 … 2·entries}; absent probes are the odd keys in between. On B the cache is opened
 * through Hazelcast's member provider ({@code guarded=false}) or through a {@link
 * GuardedCachingProvider} wrapping it ({@code guarded=true}, {@code cuckooguard.expected-insertions
 * = entries}, default fpp 0.01); the guard reads the cache's keys once (over the cluster) and
 * timing starts when it is warm.
 *
 * <p>{@code keyOwner} chooses the probes: {@code A} takes only keys whose partition member A owns,
 * so every unguarded get is a loopback round trip from B to A; {@code any} takes keys regardless,
 * about half of them owned by B itself (a local partition operation, no network), which is what a
 * member sees for uniformly spread keys. About 1 % of the absent probes are false positives of the
 * guard and still make the round trip; the fork prints the guard's counters at the end.
 *
 * <p>Hazelcast's Java 17 module flags are in {@link Fork#jvmArgsAppend()}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
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
public class JCacheClusterGetBenchmark {

  private static final String CACHE = "benchmark";
  private static final long WAIT_MILLIS = 120_000;
  // java.util.logging holds loggers weakly: keep the one whose level is set
  private static final Logger HAZELCAST = Logger.getLogger("com.hazelcast");

  /** Whether B reads through the guard. */
  @Param({"true", "false"})
  public boolean guarded;

  /** Entries written through member A. */
  @Param({"100000"})
  public int entries;

  /**
   * Which member owns the probed keys' partitions: {@code A} (always remote from B) or {@code any}.
   */
  @Param({"A", "any"})
  public String keyOwner;

  private final List<HazelcastInstance> members = new ArrayList<>();
  private final List<CachingProvider> providers = new ArrayList<>();
  Cache<Long, String> onB;
  Long[] present;
  Long[] absent;
  int cursor;

  /**
   * Starts the cluster, writes the entries through A, opens the cache on B, picks the probes and
   * waits for the guard; then checks that a get does what this benchmark claims to time.
   *
   * @throws IllegalStateException if the cluster or the guard is not ready after two minutes, or a
   *     check fails
   */
  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    Fixtures.quietLogging();
    try {
      startAndFill();
    } catch (RuntimeException | InterruptedException e) {
      stop(); // JMH skips the tear-down of a failed set-up, and live members would keep the fork
      // alive
      throw e;
    }
  }

  private void startAndFill() throws InterruptedException {
    String cluster = "cuckoo-guard-bench-" + UUID.randomUUID();
    HazelcastInstance memberA = startMember(cluster, null);
    HazelcastInstance memberB = startMember(cluster, memberA);
    await("B joined A", () -> memberA.getCluster().getMembers().size() == 2);

    Cache<Long, String> onA =
        cacheManager(new HazelcastMemberCachingProvider(), memberA, new Properties())
            .createCache(CACHE, cacheConfig());
    Map<Long, String> batch = new HashMap<>();
    for (int i = 0; i < entries; i++) {
      batch.put(Fixtures.presentKey(i), "value " + i);
      if (batch.size() == 1_000 || i == entries - 1) {
        onA.putAll(batch);
        batch.clear();
      }
    }
    await("partitions settled", () -> memberB.getPartitionService().isClusterSafe());

    Member a = memberA.getCluster().getLocalMember();
    boolean onlyA =
        switch (keyOwner) {
          case "A" -> true;
          case "any" -> false;
          default ->
              throw new IllegalArgumentException("keyOwner (" + keyOwner + ") must be A or any");
        };
    LongPredicate wanted =
        key -> !onlyA || a.equals(memberB.getPartitionService().getPartition(key).getOwner());
    present = Fixtures.probes(entries, true, wanted);
    absent = Fixtures.probes(entries, false, wanted);

    CachingProvider hazelcastOnB = new HazelcastMemberCachingProvider();
    Properties guardSettings = new Properties();
    guardSettings.setProperty(
        GuardSettings.PREFIX + GuardSettings.EXPECTED_INSERTIONS, String.valueOf(entries));
    onB =
        guarded
            ? cacheManager(new GuardedCachingProvider(hazelcastOnB), memberB, guardSettings)
                .getCache(CACHE, Long.class, String.class)
            : cacheManager(hazelcastOnB, memberB, new Properties())
                .getCache(CACHE, Long.class, String.class);
    if (onB instanceof GuardedCache<Long, String> guard) {
      await("B's guard read the cache", () -> !guard.isPassThrough());
    }
    check();
  }

  /**
   * Starts a member of {@code cluster} that joins {@code join}, or the first one if that is null.
   */
  private HazelcastInstance startMember(String cluster, HazelcastInstance join) {
    Config config = new Config().setClusterName(cluster);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "jdk");
    NetworkConfig network =
        config.getNetworkConfig().setPort(5701).setPortAutoIncrement(true).setPortCount(200);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig joinConfig = network.getJoin();
    joinConfig.getMulticastConfig().setEnabled(false);
    joinConfig.getAutoDetectionConfig().setEnabled(false);
    // B joins A at the port A actually bound: other processes may hold 5701 and up
    String seed =
        join == null
            ? "127.0.0.1"
            : "127.0.0.1:" + join.getCluster().getLocalMember().getAddress().getPort();
    joinConfig.getTcpIpConfig().setEnabled(true).addMember(seed);
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    members.add(member);
    return member;
  }

  /**
   * JCache defaults, except that Hazelcast may not evict: its default cache configuration keeps
   * about 10 000 entries per member and evicts the rest, and evicted keys would be absent keys.
   */
  private static CacheConfig<Long, String> cacheConfig() {
    CacheConfig<Long, String> config =
        new CacheConfig<>(
            new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
    config.setEvictionConfig(
        new EvictionConfig()
            .setMaxSizePolicy(MaxSizePolicy.ENTRY_COUNT)
            .setSize(Integer.MAX_VALUE));
    return config;
  }

  /**
   * The default cache manager of {@code provider} on {@code member}, with {@code settings} added to
   * its properties: one provider instance per member.
   */
  private CacheManager cacheManager(
      CachingProvider provider, HazelcastInstance member, Properties settings) {
    providers.add(provider);
    Properties properties = HazelcastCachingProvider.propertiesByInstanceItself(member);
    properties.putAll(settings);
    return provider.getCacheManager(
        provider.getDefaultURI(), provider.getDefaultClassLoader(), properties);
  }

  /**
   * Every present probe is found and every absent one is not (so nothing was evicted), and the
   * guard answers most absent ones alone. Runs the same gets with and without the guard.
   */
  private void check() {
    long before =
        onB instanceof GuardedCache<Long, String> guard ? guard.stats().definiteMisses() : 0;
    for (int i = 0; i < Fixtures.PROBES; i++) {
      if (onB.get(present[i]) == null || onB.get(absent[i]) != null) {
        throw new IllegalStateException(
            "B does not see exactly the entries A wrote: key " + present[i] + " or " + absent[i]);
      }
    }
    if (onB instanceof GuardedCache<Long, String> guard) {
      long skipped = guard.stats().definiteMisses() - before;
      if (skipped < absent.length * 9 / 10) {
        throw new IllegalStateException(
            "the guard answered only "
                + skipped
                + " of "
                + absent.length
                + " gets of absent keys: "
                + guard.stats());
      }
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT_MILLIS;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("not ready after " + WAIT_MILLIS / 1000 + " s: " + what);
      }
      Thread.sleep(20);
    }
  }

  /**
   * Prints the guard's counters for the trial, then closes the providers and stops both members.
   */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (onB instanceof GuardedCache<Long, String> guard) {
      GuardStats stats = guard.stats();
      System.out.printf(
          "%nguard: %d lookups, %d definite misses, %d false positives reported; %d keys, %d bytes,"
              + " %d rebuilds%n",
          stats.lookups(),
          stats.definiteMisses(),
          stats.falsePositives(),
          stats.size(),
          stats.sizeInBytes(),
          stats.rebuilds());
    }
    stop();
  }

  private void stop() {
    // its "Terminating forcefully" warnings would land inside JMH's output lines
    HAZELCAST.setLevel(java.util.logging.Level.SEVERE);
    providers.forEach(CachingProvider::close);
    members.forEach(member -> member.getLifecycleService().terminate());
  }

  /** One get of a key that was never written. */
  @Benchmark
  public String getAbsent() {
    return onB.get(absent[cursor++ & (Fixtures.PROBES - 1)]);
  }

  /** One get of a key that A wrote. */
  @Benchmark
  public String getPresent() {
    return onB.get(present[cursor++ & (Fixtures.PROBES - 1)]);
  }
}
