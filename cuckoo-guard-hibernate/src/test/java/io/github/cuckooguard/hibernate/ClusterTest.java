package io.github.cuckooguard.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.hibernate.model.Receipt;
import io.github.cuckooguard.hibernate.model.Shipment;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.hibernate.FlushMode;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Two application instances on one database: two session factories on one in-memory H2 database
 * (shared by name), each with its own embedded Hazelcast member (127.0.0.1, TCP-IP join, ports
 * 5970-5977 or from {@code -Dcuckoo.test.hazelcast.port}, multicast and auto-detection off), joined
 * by {@code hibernate.cuckoo.cluster.*} settings: A is given its member in the settings map, B
 * finds its member by instance name. Without the cluster, B's find of a row A just committed
 * returns null (its guard never saw the insert); with it, never.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTest {

  /** Cross-instance pairs: up to this many, or as many as fit in {@link #BUDGET_SECONDS}. */
  private static final int PAIRS = Integer.getInteger("cuckoo.hibernate.cluster.pairs", 100_000);

  private static final long BUDGET_SECONDS = Long.getLong("cuckoo.hibernate.cluster.seconds", 60);
  private static final int ROWS_PER_TRANSACTION = 5;
  private static final int BASE_PORT = Integer.getInteger("cuckoo.test.hazelcast.port", 5970);

  private final String cluster = "cuckoo-hibernate-" + UUID.randomUUID();
  private HazelcastInstance memberA;
  private HazelcastInstance memberB;
  private SessionFactory a;
  private SessionFactory b;
  private String url = "";

  static Config memberConfig(String cluster, String instanceName, int basePort) {
    Config config = new Config().setClusterName(cluster).setInstanceName(instanceName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(basePort).setPortAutoIncrement(true).setPortCount(8);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    for (int p = basePort; p < basePort + 8; p++) {
      join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + p);
    }
    return config;
  }

  @BeforeAll
  void start() throws Exception {
    memberA = Hazelcast.newHazelcastInstance(memberConfig(cluster, cluster + "-a", BASE_PORT));
    memberB = Hazelcast.newHazelcastInstance(memberConfig(cluster, cluster + "-b", BASE_PORT));
    url = Db.newUrl();
    Configuration ca =
        Db.configuration(
            url,
            new SqlCounter(),
            Map.of(CuckooGuardSettings.CLUSTER_LEASE_MILLIS, 3_000),
            Shipment.class,
            Receipt.class);
    ca.getProperties().put(CuckooGuardSettings.CLUSTER_INSTANCE, memberA);
    a = ca.buildSessionFactory();
    b =
        Db.configuration(
                url,
                new SqlCounter(),
                Map.of(
                    CuckooGuardSettings.CLUSTER_INSTANCE,
                    cluster + "-b",
                    CuckooGuardSettings.CLUSTER_LEASE_MILLIS,
                    3_000,
                    "hibernate.hbm2ddl.auto",
                    "none"),
                Shipment.class,
                Receipt.class)
            .buildSessionFactory();
    awaitAnswersAbsent(a);
    awaitAnswersAbsent(b);
  }

  /**
   * Until the factory's guard answers "definitely absent" for an id that never exists: leased and
   * complete.
   */
  private static void awaitAnswersAbsent(SessionFactory sf) throws InterruptedException {
    awaitAnswersAbsent(sf, Shipment.class);
  }

  private static void awaitAnswersAbsent(SessionFactory sf, Class<?> entity)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (HibernateCuckooGuards.of(sf).mightContain(entity, -1L)) {
      assertThat(System.nanoTime() - deadline)
          .as("guard leased and complete within 60 s")
          .isNegative();
      Thread.sleep(20);
    }
  }

  @AfterAll
  void stop() {
    for (AutoCloseable c : new AutoCloseable[] {a, b}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // closing anyway
      }
    }
    if (memberA != null) {
      memberA.getLifecycleService().terminate();
    }
    if (memberB != null) {
      memberB.getLifecycleService().terminate();
    }
  }

  @Test
  void committedOnOneInstanceIsNeverMissingOnTheOther() throws Exception {
    AtomicLong nextId = new AtomicLong(1_000_000);
    AtomicLong started = new AtomicLong();
    LongAdder pairs = new LongAdder();
    LongAdder falseNegatives = new LongAdder();
    LongAdder shortCircuitedAbsent = new LongAdder();
    BlockingQueue<Long> toB = new ArrayBlockingQueue<>(50_000);
    BlockingQueue<Long> toA = new ArrayBlockingQueue<>(50_000);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BUDGET_SECONDS);
    AtomicBoolean writersDone = new AtomicBoolean();
    List<Thread> writers = new ArrayList<>();
    List<Thread> readers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      SessionFactory writer = w % 2 == 0 ? a : b;
      BlockingQueue<Long> handOff = w % 2 == 0 ? toB : toA;
      writers.add(
          new Thread(
              () -> {
                try {
                  while (started.addAndGet(ROWS_PER_TRANSACTION) <= PAIRS
                      && System.nanoTime() - deadline < 0) {
                    long[] ids = new long[ROWS_PER_TRANSACTION];
                    writer.inTransaction(
                        s -> {
                          for (int i = 0; i < ids.length; i++) {
                            ids[i] = nextId.incrementAndGet();
                            s.persist(new Shipment(ids[i], "dock " + i));
                          }
                        }); // committed: from here on every instance must find these rows
                    for (long id : ids) {
                      handOff.put(id);
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "writer-" + w));
    }
    for (int r = 0; r < 4; r++) {
      SessionFactory reader = r % 2 == 0 ? b : a;
      BlockingQueue<Long> handOff = r % 2 == 0 ? toB : toA;
      readers.add(
          new Thread(
              () -> {
                List<Long> batch = new ArrayList<>();
                try {
                  while (true) {
                    Long first = handOff.poll(20, TimeUnit.MILLISECONDS);
                    if (first == null) {
                      if (writersDone.get() && handOff.isEmpty()) {
                        return;
                      }
                      continue;
                    }
                    batch.clear();
                    batch.add(first);
                    handOff.drainTo(batch, 49);
                    try (Session s = reader.openSession()) {
                      for (long id : batch) {
                        if (s.find(Shipment.class, id) == null) {
                          falseNegatives.increment();
                        }
                        if (s.find(Shipment.class, -id) == null
                            && !HibernateCuckooGuards.of(reader)
                                .mightContain(Shipment.class, -id)) {
                          shortCircuitedAbsent.increment();
                        }
                        pairs.increment();
                      }
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "reader-" + r));
    }
    // The database as the shadow truth, independent of the hand-off: a row this query returns is
    // committed, so from then on both instances must answer "might exist" for it. It also sees a
    // row in the instant after its commit, before the writer's thread has moved on.
    LongAdder truthChecks = new LongAdder();
    LongAdder truthMissing = new LongAdder();
    AtomicReference<Throwable> truthFailure = new AtomicReference<>();
    Thread truth =
        new Thread(
            () -> {
              long seen = 1_000_000;
              try (Connection c = DriverManager.getConnection(url, "sa", "");
                  PreparedStatement q =
                      c.prepareStatement("select id from Shipment where id > ? order by id")) {
                while (!writersDone.get()) {
                  // a window behind the highest id seen: transactions commit out of id order
                  q.setLong(1, seen - 50);
                  try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                      long id = rs.getLong(1);
                      for (SessionFactory sf : List.of(a, b)) {
                        if (!HibernateCuckooGuards.of(sf).mightContain(Shipment.class, id)) {
                          truthMissing.increment();
                        }
                      }
                      truthChecks.increment();
                      seen = Math.max(seen, id);
                    }
                  }
                  Thread.sleep(2);
                }
              } catch (SQLException | RuntimeException e) {
                truthFailure.set(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "truth");
    long t0 = System.nanoTime();
    writers.forEach(Thread::start);
    readers.forEach(Thread::start);
    truth.start();
    for (Thread t : writers) {
      t.join();
    }
    writersDone.set(true);
    for (Thread t : readers) {
      t.join();
    }
    truth.join();
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    System.out.printf(
        "hibernate cluster: %d cross-instance write-then-read pairs in %d ms (%d rows per"
            + " transaction, 4 writers, 4 readers, budget %d s); false negatives %d; absent ids short-circuited"
            + " %d; committed rows checked on both instances %d, missing %d%n",
        pairs.sum(),
        millis,
        ROWS_PER_TRANSACTION,
        BUDGET_SECONDS,
        falseNegatives.sum(),
        shortCircuitedAbsent.sum(),
        truthChecks.sum(),
        truthMissing.sum());
    assertThat(truthFailure.get()).isNull();
    assertThat(falseNegatives.sum()).isZero();
    assertThat(truthMissing.sum()).as("committed rows either instance reported absent").isZero();
    assertThat(truthChecks.sum()).as("the truth checker ran").isGreaterThan(pairs.sum() / 2);
    assertThat(pairs.sum()).as("enough pairs to mean something").isGreaterThan(2_000);
    // not vacuous: both instances mostly answered "definitely absent" for absent ids (leased)
    assertThat(shortCircuitedAbsent.sum()).isGreaterThan(pairs.sum() / 2);
  }

  /**
   * Identity inserts in a session that never flushes run their statements at persist, outside any
   * flush: their enters reach the other instance in the transaction's beforeCompletion. Checked in
   * a synchronization's afterCompletion, which Hibernate runs right after the physical commit and
   * before the adapter's own after-completion work.
   */
  @Test
  void insertsNoFlushSentAreOnTheOtherInstanceWhenTheCommitReturns() throws Exception {
    awaitAnswersAbsent(b, Receipt.class);
    List<Long> ids = new ArrayList<>();
    AtomicLong missingAtCommit = new AtomicLong(-1);
    AtomicLong absentAnsweredAtCommit = new AtomicLong(-1);
    AtomicLong statusAtCommit = new AtomicLong(-1);
    try (Session s = a.openSession()) {
      s.setHibernateFlushMode(FlushMode.MANUAL);
      Transaction tx = s.beginTransaction();
      for (int i = 0; i < 40; i++) {
        Receipt r = new Receipt("receipt " + i);
        s.persist(r);
        assertThat(r.id).as("identity insert ran at persist").isNotNull();
        ids.add(r.id);
      }
      tx.registerSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
              statusAtCommit.set(status);
              HibernateCuckooGuards onB = HibernateCuckooGuards.of(b);
              missingAtCommit.set(
                  ids.stream().filter(id -> !onB.mightContain(Receipt.class, id)).count());
              absentAnsweredAtCommit.set(
                  ids.stream().filter(id -> !onB.mightContain(Receipt.class, -id)).count());
            }
          });
      tx.commit();
    }
    assertThat(statusAtCommit.get()).isEqualTo(Status.STATUS_COMMITTED);
    assertThat(missingAtCommit.get()).as("committed ids B reported absent").isZero();
    assertThat(absentAnsweredAtCommit.get())
        .as("B was answering absent then (not vacuous)")
        .isGreaterThan(30);
    try (Session s = b.openSession()) {
      for (long id : ids) {
        assertThat(s.find(Receipt.class, id)).isNotNull();
      }
    }
  }

  @Test
  void rolledBackInsertIsPairedAwayOnEveryInstance() throws Exception {
    long sizeA = HibernateCuckooGuards.of(a).stats(Shipment.class).guard().size();
    long sizeB = HibernateCuckooGuards.of(b).stats(Shipment.class).guard().size();
    List<Long> ids = new ArrayList<>();
    for (long id = 1; id <= 300; id++) {
      ids.add(id);
    }
    try (Session s = a.openSession()) {
      var tx = s.beginTransaction();
      for (long id : ids) {
        s.persist(new Shipment(id, "never"));
      }
      s.flush(); // the enters are acknowledged by B here, before any commit
      long inFlightOnB =
          ids.stream()
              .filter(id -> HibernateCuckooGuards.of(b).mightContain(Shipment.class, id))
              .count();
      assertThat(inFlightOnB)
          .as("B holds every flushed id before the commit")
          .isEqualTo(ids.size());
      assertThat(HibernateCuckooGuards.of(b).stats(Shipment.class).guard().size())
          .isEqualTo(sizeB + ids.size());
      tx.rollback();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (HibernateCuckooGuards.of(b).stats(Shipment.class).guard().size() != sizeB) {
      assertThat(System.nanoTime() - deadline).as("the abort reaches B").isNegative();
      Thread.sleep(10);
    }
    assertThat(HibernateCuckooGuards.of(a).stats(Shipment.class).guard().size()).isEqualTo(sizeA);
    awaitAnswersAbsent(b);
    long stillThere =
        ids.stream()
            .filter(id -> HibernateCuckooGuards.of(b).mightContain(Shipment.class, id))
            .count();
    assertThat(stillThere)
        .as("B short-circuits the rolled-back ids again (fpp 1 %% of 300)")
        .isLessThan(15);
    try (Session s = b.openSession()) {
      assertThat(s.find(Shipment.class, 1L)).isNull(); // and there is no row: no false negative
    }
  }

  @Test
  void unknownClusterSettingFailsTheBuild() {
    Configuration c =
        Db.configuration(
            Db.newUrl(),
            new SqlCounter(),
            Map.of(
                "hibernate.cuckoo.cluster.lease",
                500,
                CuckooGuardSettings.CLUSTER_INSTANCE,
                cluster + "-a"),
            Shipment.class);
    assertThatThrownBy(c::buildSessionFactory)
        .hasStackTraceContaining("hibernate.cuckoo.cluster.lease");
  }
}
