package io.github.cuckooguard.jcache;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.config.CacheSimpleConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A member JVM started by {@link SeparateJvmGroupTest}: a Hazelcast member on 127.0.0.1 and the
 * guarded JCache {@value #CACHE} over it (Hazelcast's member {@code CachingProvider} wrapped by
 * {@link GuardedCachingProvider}, lease {@value #LEASE_MILLIS} ms), so its guard is in the group
 * {@code jcache:<cache>} with the other processes'.
 *
 * <p>Its writer (unless it is a checker only) puts keys while the file {@code go} exists and
 * appends each key to {@code keys-NAME.txt} after {@code put} returned: the key files are the
 * shadow truth (a line cut short by a kill has no {@code \n} and is not read, {@link KeyFiles}).
 * Its checker asks its own guarded cache {@link GuardedCache#mightContain} for every key of every
 * key file, round after round, and counts the "absent" answers (false negatives); each round it
 * also asks for {@value #ABSENT_PROBES} keys nobody writes, to see whether it answers "absent" at
 * all. Every {@value #STATUS_MILLIS} ms it replaces {@code status-NAME.txt} with its figures
 * ({@link Status}). It exits when the file {@code stop} appears (or after 5 minutes).
 *
 * <p>Arguments: cluster name, base port, port count, directory, member name, {@code writer} or
 * {@code checker} (a checker is a lite member: it owns no partitions, so a pause of it holds no
 * other member's {@code put} on a partition it owns; the writers then wait only for the guard
 * group, which stops waiting once its lease ran out).
 */
public final class GuardedCacheMemberProcess {

  static final String CACHE = "ids";

  /** The group's lease: short, so that a pause of a few seconds is many leases. */
  static final long LEASE_MILLIS = 300;

  static final int ABSENT_PROBES = 32;

  static final long STATUS_MILLIS = 50;

  private static final AtomicLong WRITTEN = new AtomicLong();
  private static final AtomicLong CHECKED = new AtomicLong();
  private static final AtomicLong FALSE_NEGATIVES = new AtomicLong();
  private static final AtomicLong ROUNDS = new AtomicLong();
  private static final AtomicLong LAST_ROUND_START = new AtomicLong();
  private static final AtomicLong LAST_PASS_THROUGH = new AtomicLong();
  private static final AtomicLong LAST_ABSENT_ANSWER = new AtomicLong();

  private GuardedCacheMemberProcess() {}

  /**
   * A member's figures, as written in its status file: keys written, keys checked, false negatives,
   * checker rounds completed, when (epoch ms) the last completed round began reading the key files,
   * when its checker last saw the guard pass through (0: never), when its guard last answered
   * "absent" for a key nobody writes (0: never).
   */
  record Status(
      long written,
      long checked,
      long falseNegatives,
      long rounds,
      long lastRoundStartMillis,
      long lastPassThroughMillis,
      long lastAbsentAnswerMillis) {

    static final Status NONE = new Status(0, 0, 0, 0, 0, 0, 0);

    static Status read(Path file) throws IOException {
      if (!Files.exists(file)) {
        return NONE;
      }
      String[] f = Files.readString(file).trim().split(" ");
      long[] v = new long[7];
      for (int i = 0; i < v.length; i++) {
        v[i] = Long.parseLong(f[i]);
      }
      return new Status(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    }
  }

  /** The member's configuration: loopback ports, a 6 s failure detection, the cache declared. */
  static Config config(String cluster, int basePort, int ports, boolean lite) {
    Config config = MemberJvms.loopbackConfig(cluster, basePort, ports).setLiteMember(lite);
    // A killed member is removed within seconds (its partitions' puts wait until then); a paused
    // one (2 s) stays a member.
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", "6");
    config.setProperty("hazelcast.heartbeat.failuredetector.type", "deadline");
    // Declared, so that every member gets it with getCache, in any order; no eviction: an
    // evicted key would still be in the key files, and the guard may drop it.
    config.addCacheConfig(
        new CacheSimpleConfig()
            .setName(CACHE)
            .setKeyType(Long.class.getName())
            .setValueType(String.class.getName())
            .setEvictionConfig(
                new EvictionConfig()
                    .setMaxSizePolicy(MaxSizePolicy.ENTRY_COUNT)
                    .setSize(Integer.MAX_VALUE)));
    return config;
  }

  /** The keys {@code name} writes: its own range, apart from the other members' and the probes. */
  static long keyBase(String name) {
    return ((name.hashCode() & 0xffffL) + 1) << 32;
  }

  public static void main(String[] args) throws Exception {
    String cluster = args[0];
    int basePort = Integer.parseInt(args[1]);
    int ports = Integer.parseInt(args[2]);
    Path dir = Path.of(args[3]);
    String name = args[4];
    boolean writes = args[5].equals("writer");
    HazelcastInstance member =
        Hazelcast.newHazelcastInstance(config(cluster, basePort, ports, !writes));
    GuardedCachingProvider provider =
        new GuardedCachingProvider(new HazelcastMemberCachingProvider());
    Properties properties = HazelcastCachingProvider.propertiesByInstanceItself(member);
    properties.setProperty(
        GuardSettings.PREFIX + GuardSettings.CLUSTER_LEASE, Long.toString(LEASE_MILLIS));
    properties.setProperty(GuardSettings.PREFIX + GuardSettings.EXPECTED_INSERTIONS, "200000");
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>)
            provider
                .getCacheManager(
                    provider.getDefaultURI(), provider.getDefaultClassLoader(), properties)
                .getCache(CACHE, Long.class, String.class);
    if (cache == null) {
      throw new IllegalStateException("no cache '" + CACHE + "' on member " + name);
    }
    start("checker", () -> check(dir, cache));
    if (writes) {
      start("writer", () -> write(dir, name, cache));
    }
    start("status", () -> report(dir.resolve("status-" + name + ".txt")));
    System.out.println("STARTED " + name);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5); // if the test forgot it
    while (!Files.exists(dir.resolve("stop")) && System.nanoTime() - deadline < 0) {
      Thread.sleep(20);
    }
    System.exit(0);
  }

  private interface Body {
    void run() throws Exception;
  }

  private static void start(String name, Body body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception e) {
                e.printStackTrace();
              }
            },
            name);
    t.setDaemon(true);
    t.start();
  }

  private static void write(Path dir, String name, GuardedCache<Long, String> cache)
      throws Exception {
    Path own = dir.resolve("keys-" + name + ".txt");
    long key = keyBase(name);
    while (true) {
      if (!Files.exists(dir.resolve("go"))) {
        Thread.sleep(5);
        continue;
      }
      cache.put(++key, "v");
      // after put returned: from here on the key is present, and every check must find it
      Files.writeString(
          own,
          key + "\n",
          StandardCharsets.US_ASCII,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      WRITTEN.incrementAndGet();
      Thread.sleep(2); // a steady stream, not a CPU hog on a shared machine
    }
  }

  private static void check(Path dir, GuardedCache<Long, String> cache) throws Exception {
    while (true) {
      long start = System.currentTimeMillis();
      List<Long> keys;
      try {
        keys = KeyFiles.presentKeys(dir);
      } catch (IOException e) {
        continue; // a file listed while created: read again
      }
      for (long key : keys) {
        if (!cache.mightContain(key)) {
          long count = FALSE_NEGATIVES.incrementAndGet();
          if (count <= 10) {
            System.out.println(
                "FALSE NEGATIVE "
                    + count
                    + ": key "
                    + key
                    + " at "
                    + System.currentTimeMillis()
                    + " ms, pass-through "
                    + cache.isPassThrough());
          }
        }
        CHECKED.incrementAndGet();
      }
      boolean answeredAbsent = false;
      for (long probe = 1; probe <= ABSENT_PROBES; probe++) { // below every writer's range
        answeredAbsent |= !cache.mightContain(probe);
      }
      long now = System.currentTimeMillis();
      if (cache.isPassThrough()) {
        LAST_PASS_THROUGH.set(now);
      }
      if (answeredAbsent) {
        LAST_ABSENT_ANSWER.set(now);
      }
      LAST_ROUND_START.set(start);
      ROUNDS.incrementAndGet();
      Thread.sleep(1);
    }
  }

  private static void report(Path status) throws Exception {
    Path next = status.resolveSibling(status.getFileName() + ".next");
    while (true) {
      String line =
          WRITTEN.get()
              + " "
              + CHECKED.get()
              + " "
              + FALSE_NEGATIVES.get()
              + " "
              + ROUNDS.get()
              + " "
              + LAST_ROUND_START.get()
              + " "
              + LAST_PASS_THROUGH.get()
              + " "
              + LAST_ABSENT_ANSWER.get()
              + "\n";
      Files.writeString(next, line, StandardCharsets.US_ASCII);
      Files.move(next, status, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      Thread.sleep(STATUS_MILLIS);
    }
  }
}
