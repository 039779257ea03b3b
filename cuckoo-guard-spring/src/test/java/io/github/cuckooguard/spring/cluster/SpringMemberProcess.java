package io.github.cuckooguard.spring.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import io.github.cuckooguard.spi.ReplicatedGuard;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.Contexts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * An application instance in a JVM of its own, started by {@link SeparateJvmSpringTest}: a Spring
 * context ({@link Application}: {@code @EnableCuckooGuard} with a {@value #LEASE_MILLIS} ms lease,
 * {@link ClusterUserRepository} over JdbcTemplate, DataSourceTransactionManager,
 * {@code @Transactional} adds) on the test's H2 database, reached over H2's TCP server, and an
 * embedded Hazelcast member on 127.0.0.1 as its {@code HazelcastInstance} bean, so that its guard
 * {@code members} is in the group {@code spring:members} with the other processes'. Every member is
 * a full member (it owns partitions); the guarded writes go to H2, not to Hazelcast's partitions.
 *
 * <p>Its writer (unless it is a checker only) inserts rows through the guarded {@code insert}, one
 * transaction each, while the file {@code go} exists, and appends each id to {@code keys-NAME.txt}
 * after {@code insert} returned, i.e. after the commit: the key files are the shadow truth (a line
 * cut short by a kill has no {@code \n} and is not read, {@link KeyFiles}). Its checker, round
 * after round, asks the replicated guard the guarded finders ask ({@code
 * ReplicatedGuard.mightContain}: "absent" only with a lease of the group and a complete filter) for
 * every id of every key file and counts the "absent" answers (false negatives); each round it also
 * calls the guarded {@code findById} for the newest {@value #FIND_SAMPLE} ids of each file (a
 * {@code null} is a false negative of the whole Spring path) and asks for {@value #ABSENT_PROBES}
 * ids nobody writes, to see whether it answers "absent" at all. Every {@value #STATUS_MILLIS} ms it
 * replaces {@code status-NAME.txt} with its figures ({@link Status}). It exits when the file {@code
 * stop} appears (or after 5 minutes).
 *
 * <p>Arguments: cluster name, base port, port count, directory, member name, {@code writer} or
 * {@code checker}, the database's JDBC URL.
 */
public final class SpringMemberProcess {

  /** The groups' lease: short, so that a pause of two seconds is many leases. */
  static final long LEASE_MILLIS = 300;

  /** The group of {@link ClusterUserRepository}'s guard {@code members}: {@code spring:<guard>}. */
  static final String GROUP = "spring:members";

  static final int ABSENT_PROBES = 32;

  static final int FIND_SAMPLE = 20;

  static final long STATUS_MILLIS = 50;

  /**
   * Where cuckoo-guard-hazelcast keeps a member's groups (its user context), so that the checker
   * asks the very replicated guard the guarded finders ask.
   */
  private static final String GROUP_REGISTRY = HazelcastGuardGroup.class.getName() + ".registry";

  private static final AtomicLong WRITTEN = new AtomicLong();
  private static final AtomicLong FAILED_WRITES = new AtomicLong();
  private static final AtomicLong SLOWEST_WRITE_MILLIS = new AtomicLong();
  private static final AtomicLong CHECKED = new AtomicLong();
  private static final AtomicLong FALSE_NEGATIVES = new AtomicLong();
  private static final AtomicLong FINDS = new AtomicLong();
  private static final AtomicLong FIND_FALSE_NEGATIVES = new AtomicLong();
  private static final AtomicLong ROUNDS = new AtomicLong();
  private static final AtomicLong LAST_ROUND_START = new AtomicLong();
  private static final AtomicLong LAST_PASS_THROUGH = new AtomicLong();
  private static final AtomicLong LAST_ABSENT_ANSWER = new AtomicLong();
  private static final AtomicLong PARTITIONS_OWNED = new AtomicLong();
  private static final AtomicLong PASS_THROUGH_MILLIS = new AtomicLong();

  private SpringMemberProcess() {}

  /**
   * A member's figures, as written in its status file: rows written (committed and appended),
   * guarded inserts that threw, the slowest guarded insert (ms), ids checked against the group's
   * guard, its false negatives, guarded finds of present ids, their {@code null}s, checker rounds
   * completed, when (epoch ms) the last completed round began reading the key files, when it last
   * saw the group pass through (0: never), when its guard last answered "absent" for an id nobody
   * writes (0: never), the group's lapses, the partitions this member owns, and for how long (ms,
   * sampled every {@value #STATUS_MILLIS} ms) the group passed through (could not answer "absent").
   */
  record Status(
      long written,
      long failedWrites,
      long slowestWriteMillis,
      long checked,
      long falseNegatives,
      long finds,
      long findFalseNegatives,
      long rounds,
      long lastRoundStartMillis,
      long lastPassThroughMillis,
      long lastAbsentAnswerMillis,
      long lapses,
      long partitionsOwned,
      long passThroughMillis) {

    static final int FIELDS = 14;
    static final Status NONE = new Status(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    static Status read(Path file) throws IOException {
      if (!Files.exists(file)) {
        return NONE;
      }
      String[] f = Files.readString(file).trim().split(" ");
      long[] v = new long[FIELDS];
      for (int i = 0; i < v.length; i++) {
        v[i] = Long.parseLong(f[i]);
      }
      return new Status(
          v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
    }
  }

  /**
   * The application: the guarded repository on a pooled H2 connection over TCP, transactions, the
   * guards clustered by the {@code HazelcastInstance} bean the process registers.
   */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterLeaseMillis = LEASE_MILLIS)
  @EnableTransactionManagement
  @Import(ClusterUserRepository.class)
  public static class Application {

    @Bean(destroyMethod = "dispose")
    public JdbcConnectionPool dataSource(@Qualifier("h2Url") String url) {
      return JdbcConnectionPool.create(url, "sa", "");
    }

    @Bean
    public CallCounter callCounter() {
      return new CallCounter();
    }

    @Bean
    public PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    public JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }
  }

  /** The member's configuration: loopback ports, a 6 s failure detection. */
  static Config config(String cluster, int basePort, int ports) {
    Config config = MemberJvms.loopbackConfig(cluster, basePort, ports);
    // A killed member is removed within seconds; a paused one (2 s) stays a member.
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", "6");
    config.setProperty("hazelcast.heartbeat.failuredetector.type", "deadline");
    return config;
  }

  /** The ids {@code name} writes: its own range, apart from the other members' and the probes. */
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
    String url = args[6];
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config(cluster, basePort, ports));
    AnnotationConfigApplicationContext context =
        Contexts.start(
            url,
            c -> c.registerBean("hazelcast", HazelcastInstance.class, () -> member),
            Application.class);
    ClusterUserRepository repository = context.getBean(ClusterUserRepository.class);
    HazelcastGuardGroup<?> group = group(member, GROUP);
    start("checker", () -> check(dir, repository, group));
    if (writes) {
      start("writer", () -> write(dir, name, repository));
    }
    start("status", () -> report(dir.resolve("status-" + name + ".txt"), member, group));
    System.out.println("STARTED " + name);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5); // if the test forgot it
    while (!Files.exists(dir.resolve("stop")) && System.nanoTime() - deadline < 0) {
      Thread.sleep(20);
    }
    System.exit(0);
  }

  @SuppressWarnings("unchecked")
  private static HazelcastGuardGroup<?> group(HazelcastInstance member, String name) {
    Map<String, HazelcastGuardGroup<?>> groups =
        (Map<String, HazelcastGuardGroup<?>>) member.getUserContext().get(GROUP_REGISTRY);
    HazelcastGuardGroup<?> group = groups == null ? null : groups.get(name);
    if (group == null) {
      throw new IllegalStateException("no guard group '" + name + "' on " + member);
    }
    return group;
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

  private static void write(Path dir, String name, ClusterUserRepository repository)
      throws Exception {
    Path own = dir.resolve("keys-" + name + ".txt");
    long id = keyBase(name);
    while (true) {
      if (!Files.exists(dir.resolve("go"))) {
        Thread.sleep(5);
        continue;
      }
      long t0 = System.nanoTime();
      boolean created;
      try {
        created = repository.insert(new User(++id, "u"));
      } catch (RuntimeException e) { // e.g. the group could not be made safe: rolled back
        if (FAILED_WRITES.incrementAndGet() <= 10) {
          e.printStackTrace(System.out);
        }
        continue;
      }
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      SLOWEST_WRITE_MILLIS.accumulateAndGet(millis, Math::max);
      if (!created) {
        throw new IllegalStateException("id " + id + " existed");
      }
      // after insert returned, its transaction committed: from here on the row is present, and
      // every check must find it
      Files.writeString(
          own,
          id + "\n",
          StandardCharsets.US_ASCII,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      WRITTEN.incrementAndGet();
      Thread.sleep(2); // a steady stream, not a CPU hog on a shared machine
    }
  }

  private static void check(
      Path dir, ClusterUserRepository repository, HazelcastGuardGroup<?> group) throws Exception {
    @SuppressWarnings("unchecked")
    ReplicatedGuard<Object> guard = (ReplicatedGuard<Object>) group.guard();
    while (true) {
      long start = System.currentTimeMillis();
      List<Long> keys;
      try {
        keys = KeyFiles.presentKeys(dir);
      } catch (IOException e) {
        continue; // a file listed while created: read again
      }
      for (long key : keys) {
        if (!guard.mightContain(key)) {
          falseNegative(FALSE_NEGATIVES, "guard", key, group);
        }
        CHECKED.incrementAndGet();
      }
      for (Path file : keyFiles(dir)) {
        List<Long> ids;
        try {
          ids = KeyFiles.completeLines(file);
        } catch (IOException e) {
          continue;
        }
        for (long id : ids.subList(Math.max(0, ids.size() - FIND_SAMPLE), ids.size())) {
          if (repository.findById(id) == null) {
            falseNegative(FIND_FALSE_NEGATIVES, "findById", id, group);
          }
          FINDS.incrementAndGet();
        }
      }
      boolean answeredAbsent = false;
      for (long probe = 1; probe <= ABSENT_PROBES; probe++) { // below every writer's range
        answeredAbsent |= !guard.mightContain(probe);
      }
      long now = System.currentTimeMillis();
      if (!group.mayAnswerAbsent()) {
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

  private static List<Path> keyFiles(Path dir) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "keys-*.txt")) {
      List<Path> list = new ArrayList<>();
      files.forEach(list::add);
      return list;
    }
  }

  private static void falseNegative(
      AtomicLong counter, String how, long key, HazelcastGuardGroup<?> group) {
    long count = counter.incrementAndGet();
    if (count <= 10) {
      System.out.println(
          "FALSE NEGATIVE ("
              + how
              + ") "
              + count
              + ": key "
              + key
              + " at "
              + System.currentTimeMillis()
              + " ms, group may answer absent "
              + group.mayAnswerAbsent()
              + ", lapses "
              + group.lapses());
    }
  }

  private static void report(Path status, HazelcastInstance member, HazelcastGuardGroup<?> group)
      throws Exception {
    Path next = status.resolveSibling(status.getFileName() + ".next");
    UUID self = member.getCluster().getLocalMember().getUuid();
    long lastPartitionCount = 0;
    long lastSample = System.currentTimeMillis();
    while (true) {
      long now = System.currentTimeMillis();
      if (!group.mayAnswerAbsent()) {
        LAST_PASS_THROUGH.set(now);
        PASS_THROUGH_MILLIS.addAndGet(now - lastSample);
      }
      lastSample = now;
      if (now - lastPartitionCount > 1_000) {
        long owned = 0;
        for (Partition p : member.getPartitionService().getPartitions()) {
          if (p.getOwner() != null && self.equals(p.getOwner().getUuid())) {
            owned++;
          }
        }
        PARTITIONS_OWNED.set(owned);
        lastPartitionCount = now;
      }
      long[] v = {
        WRITTEN.get(),
        FAILED_WRITES.get(),
        SLOWEST_WRITE_MILLIS.get(),
        CHECKED.get(),
        FALSE_NEGATIVES.get(),
        FINDS.get(),
        FIND_FALSE_NEGATIVES.get(),
        ROUNDS.get(),
        LAST_ROUND_START.get(),
        LAST_PASS_THROUGH.get(),
        LAST_ABSENT_ANSWER.get(),
        group.lapses(),
        PARTITIONS_OWNED.get(),
        PASS_THROUGH_MILLIS.get()
      };
      StringBuilder line = new StringBuilder();
      for (long x : v) {
        line.append(x).append(' ');
      }
      line.append('\n');
      Files.writeString(next, line, StandardCharsets.US_ASCII);
      Files.move(next, status, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      Thread.sleep(STATUS_MILLIS);
    }
  }
}
