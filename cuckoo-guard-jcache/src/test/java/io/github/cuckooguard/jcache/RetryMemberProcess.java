package io.github.cuckooguard.jcache;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.config.CacheSimpleConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * A data member JVM of {@link RetriedWriteAfterOwnerCrashTest}: a Hazelcast member on 127.0.0.1
 * with the guarded JCache {@value #CACHE} (backup count 2, statistics on), whose guard is in the
 * group {@code jcache:<cache>} with the test JVM's and the other members'. It writes its member
 * UUID to {@code uuid-NAME.txt}, then answers the test's questions: whenever {@code ask.txt}
 * (sequence number, then one key a line) has a new sequence number, it writes {@code
 * answer-NAME.txt}: the sequence number, whether its guard passes through, and the keys its guarded
 * cache's {@link GuardedCache#mightContain} answered "absent" for. It exits when {@code stop}
 * appears (or after 5 minutes).
 *
 * <p>Arguments: cluster name, base port, port count, directory, member name, lease in ms.
 */
public final class RetryMemberProcess {

  static final String CACHE = "retried";

  private RetryMemberProcess() {}

  /**
   * A member of {@code cluster} on the loopback ports; a killed member is removed within about 5 s
   * (1 s heartbeats), two partition threads (so that two blocked entry processors hold all of a
   * member's partition operations, see {@link Blocker}), and the cache {@value #CACHE} declared
   * with two synchronous backups: every write waits for the acknowledgements of both other data
   * members.
   */
  static Config config(String cluster, int basePort, int ports, boolean lite) {
    Config config = MemberJvms.loopbackConfig(cluster, basePort, ports).setLiteMember(lite);
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", "5");
    config.setProperty("hazelcast.heartbeat.failuredetector.type", "deadline");
    config.setProperty("hazelcast.operation.thread.count", "2");
    config.addCacheConfig(
        new CacheSimpleConfig()
            .setName(CACHE)
            .setKeyType(Long.class.getName())
            .setValueType(String.class.getName())
            .setBackupCount(2)
            .setStatisticsEnabled(true)
            .setEvictionConfig(
                new EvictionConfig()
                    .setMaxSizePolicy(MaxSizePolicy.ENTRY_COUNT)
                    .setSize(Integer.MAX_VALUE)));
    return config;
  }

  /**
   * The guarded cache {@value #CACHE} on {@code member}, in the guard group, lease {@code lease}.
   */
  @SuppressWarnings("unchecked")
  static GuardedCache<Long, String> open(
      HazelcastInstance member, long leaseMillis, List<GuardedCachingProvider> providers) {
    GuardedCachingProvider provider =
        new GuardedCachingProvider(new HazelcastMemberCachingProvider());
    providers.add(provider);
    Properties properties = HazelcastCachingProvider.propertiesByInstanceItself(member);
    properties.setProperty(
        GuardSettings.PREFIX + GuardSettings.CLUSTER_LEASE, Long.toString(leaseMillis));
    GuardedCache<Long, String> cache =
        (GuardedCache<Long, String>)
            provider
                .getCacheManager(
                    provider.getDefaultURI(), provider.getDefaultClassLoader(), properties)
                .getCache(CACHE, Long.class, String.class);
    if (cache == null) {
      throw new IllegalStateException("no cache '" + CACHE + "' on member " + member);
    }
    return cache;
  }

  public static void main(String[] args) throws Exception {
    String cluster = args[0];
    int basePort = Integer.parseInt(args[1]);
    int ports = Integer.parseInt(args[2]);
    Path dir = Path.of(args[3]);
    String name = args[4];
    long lease = Long.parseLong(args[5]);
    HazelcastInstance member =
        Hazelcast.newHazelcastInstance(config(cluster, basePort, ports, false));
    GuardedCache<Long, String> cache = open(member, lease, new ArrayList<>());
    replace(
        dir.resolve("uuid-" + name + ".txt"),
        member.getCluster().getLocalMember().getUuid().toString());
    System.out.println("STARTED " + name);
    Path ask = dir.resolve("ask.txt");
    long answered = -1;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5); // if the test forgot it
    while (!Files.exists(dir.resolve("stop")) && System.nanoTime() - deadline < 0) {
      try {
        answered = answer(dir, name, cache, ask, answered);
      } catch (IOException | RuntimeException e) {
        e.printStackTrace(); // logged, and answered at the next turn
      }
      Thread.sleep(10);
    }
    System.exit(0);
  }

  /**
   * Answers {@code ask} if it has a sequence number other than {@code answered}; returns the last.
   */
  private static long answer(
      Path dir, String name, GuardedCache<Long, String> cache, Path ask, long answered)
      throws IOException {
    if (!Files.exists(ask)) {
      return answered;
    }
    List<String> lines = Files.readAllLines(ask, StandardCharsets.US_ASCII);
    long seq = Long.parseLong(lines.get(0));
    if (seq == answered) {
      return answered;
    }
    boolean passThrough = cache.isPassThrough();
    StringJoiner absent = new StringJoiner(",");
    for (String line : lines.subList(1, lines.size())) {
      if (!cache.mightContain(Long.parseLong(line))) {
        absent.add(line);
      }
    }
    replace(dir.resolve("answer-" + name + ".txt"), seq + "\n" + passThrough + "\n" + absent);
    return seq;
  }

  /** Replaces {@code file}'s content atomically (readers see the old or the new text). */
  static void replace(Path file, String text) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, text, StandardCharsets.US_ASCII);
    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * An entry processor that holds the partition thread it runs on until the file named by its
   * argument exists (60 s at most), after writing {@code blocked-<partition key>.txt} next to it;
   * it changes nothing. Two of them on a member with two partition threads hold every partition
   * operation of that member, backups included, while its group messages (executor threads) and
   * heartbeats go on: a write whose backup goes there waits for its acknowledgement.
   */
  static final class Blocker implements EntryProcessor<Long, String, Void>, Serializable {
    @Serial private static final long serialVersionUID = 1L;

    @Override
    public Void process(MutableEntry<Long, String> entry, Object... arguments) {
      Path release = Path.of((String) arguments[0]);
      try {
        replace(release.resolveSibling("blocked-" + entry.getKey() + ".txt"), "");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(release) && System.nanoTime() - deadline < 0) {
          Thread.sleep(5);
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    }
  }

  /** An entry processor that sets the value {@code "v"}: creates the entry if it is absent. */
  static final class SetValue implements EntryProcessor<Long, String, Void>, Serializable {
    @Serial private static final long serialVersionUID = 1L;

    @Override
    public Void process(MutableEntry<Long, String> entry, Object... arguments) {
      entry.setValue("v");
      return null;
    }
  }
}
