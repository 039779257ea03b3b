package io.github.cuckooguard.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.hibernate.model.Shipment;
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
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Writes that no entity event reports (native SQL, HQL insert-select, upserts) made on one
 * application instance, read on another: two session factories on one H2 database, one embedded
 * Hazelcast member each (127.0.0.1, ports from {@code -Dcuckoo.test.hazelcast.port} + 8, multicast
 * and auto-detection off). The writing instance holds the cluster in pass-through before the
 * statement and releases it after the commit, so the reading instance never returns null for such a
 * row. Without the hold the reader's guard never hears of these rows and answers "no such row" for
 * every one of them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterBulkStatementTest {

  private static final int BASE_PORT = Integer.getInteger("cuckoo.test.hazelcast.port", 5970) + 8;
  private static final long BUDGET_SECONDS =
      Long.getLong("cuckoo.hibernate.cluster.seconds", 60) / 3;

  private final String cluster = "cuckoo-hibernate-bulk-" + UUID.randomUUID();
  private final AtomicLong nextId = new AtomicLong(10_000_000);
  private final List<HazelcastInstance> members = new ArrayList<>();
  private final List<SessionFactory> factories = new ArrayList<>();
  private SessionFactory a;
  private SessionFactory b;
  private String url = "";

  private SessionFactory instance(String name, boolean createSchema) {
    HazelcastInstance member =
        Hazelcast.newHazelcastInstance(
            ClusterTest.memberConfig(cluster, cluster + "-" + name, BASE_PORT));
    members.add(member);
    Configuration c =
        Db.configuration(
            url,
            new SqlCounter(),
            Map.of(
                CuckooGuardSettings.CLUSTER_LEASE_MILLIS,
                3_000,
                "hibernate.hbm2ddl.auto",
                createSchema ? "create" : "none"),
            Shipment.class);
    c.getProperties().put(CuckooGuardSettings.CLUSTER_INSTANCE, member);
    SessionFactory sf = c.buildSessionFactory();
    factories.add(sf);
    return sf;
  }

  @BeforeAll
  void start() throws Exception {
    url = Db.newUrl();
    a = instance("a", true);
    b = instance("b", false);
    awaitAnswersAbsent(a);
    awaitAnswersAbsent(b);
  }

  @AfterAll
  void stop() {
    for (SessionFactory sf : factories) {
      try {
        sf.close();
      } catch (RuntimeException e) {
        // closing anyway
      }
    }
    members.forEach(m -> m.getLifecycleService().terminate());
  }

  /** Until the factory's guard answers "definitely absent" again: leased, complete, not held. */
  private static void awaitAnswersAbsent(SessionFactory sf) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (HibernateCuckooGuards.of(sf).mightContain(Shipment.class, -1L)) {
      assertThat(System.nanoTime() - deadline)
          .as("guard answers absent within 60 s (leased, rebuilt, not held)")
          .isNegative();
      Thread.sleep(20);
    }
  }

  private static long nullsOn(SessionFactory sf, List<Long> ids) {
    try (Session s = sf.openSession()) {
      return ids.stream().filter(id -> s.find(Shipment.class, id) == null).count();
    }
  }

  private static void nativeInsert(Session s, long id) {
    s.createNativeMutationQuery("insert into Shipment (id, destination) values (:id, 'native')")
        .setParameter("id", id)
        .executeUpdate();
  }

  @Test
  void nativeInsertSelectAndUpsertOnOneInstanceAreFoundOnTheOther() throws Exception {
    awaitAnswersAbsent(b);
    List<Long> entityIds = new ArrayList<>();
    a.inTransaction(
        s -> {
          for (int i = 0; i < 50; i++) {
            long id = nextId.incrementAndGet();
            entityIds.add(id);
            s.persist(new Shipment(id, "entity"));
          }
        });
    long copyOffset = 1_000_000;
    List<Long> written = new ArrayList<>();
    AtomicBoolean heldWhileOpen = new AtomicBoolean();
    a.inTransaction(
        s -> {
          for (int i = 0; i < 50; i++) {
            long id = nextId.incrementAndGet();
            nativeInsert(s, id);
            written.add(id);
          }
          int copied =
              s.createMutationQuery(
                      "insert into Shipment (id, destination) select e.id + :offset, 'copy'"
                          + " from Shipment e where e.id between :lo and :hi")
                  .setParameter("offset", copyOffset)
                  .setParameter("lo", entityIds.get(0))
                  .setParameter("hi", entityIds.get(entityIds.size() - 1))
                  .executeUpdate();
          assertThat(copied).isEqualTo(50);
          entityIds.forEach(id -> written.add(id + copyOffset));
          s.createMutationQuery("update Shipment set destination = 'updated' where id <= :hi")
              .setParameter("hi", entityIds.get(entityIds.size() - 1))
              .executeUpdate();
          heldWhileOpen.set(HibernateCuckooGuards.of(b).mightContain(Shipment.class, -1L));
        });
    long upserted = nextId.addAndGet(10) - 9;
    try (StatelessSession s = a.openStatelessSession()) {
      Transaction tx = s.beginTransaction();
      for (long id = upserted; id < upserted + 10; id++) {
        s.upsert(new Shipment(id, "upserted"));
        written.add(id);
      }
      tx.commit();
    }
    long nullsAtOnce = nullsOn(b, written); // committed: B must find every row from now on
    awaitAnswersAbsent(b); // the hold ended and B rescanned: it short-circuits absent ids again
    long nullsAfterRebuild = nullsOn(b, written);
    long trackedAfterRebuild =
        written.stream()
            .filter(id -> HibernateCuckooGuards.of(b).mightContain(Shipment.class, id))
            .count();
    System.out.printf(
        "bulk on A, read on B: %d rows; nulls on B at once %d, after B's rebuild %d; tracked %d%n",
        written.size(), nullsAtOnce, nullsAfterRebuild, trackedAfterRebuild);
    assertThat(nullsAtOnce).as("rows B reported missing right after A's commit").isZero();
    assertThat(nullsAfterRebuild).as("rows B reported missing after its rebuild").isZero();
    assertThat(trackedAfterRebuild).isEqualTo(written.size());
    assertThat(heldWhileOpen).as("B passed through while A's statements were open").isTrue();
    assertThat(nullsOn(a, written)).isZero();
  }

  /**
   * B's readers and a database poller (the shadow truth: a row it returns is committed) run while
   * A's bulk transactions insert rows B is never told about one by one.
   */
  @Test
  void readersOnTheOtherInstanceNeverMissARowWhileBulkStatementsRun() throws Exception {
    awaitAnswersAbsent(b);
    long first = nextId.get() + 1;
    BlockingQueue<Long> toB = new ArrayBlockingQueue<>(100_000);
    AtomicBoolean writerDone = new AtomicBoolean();
    LongAdder pairs = new LongAdder();
    LongAdder falseNegatives = new LongAdder();
    LongAdder transactions = new LongAdder();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BUDGET_SECONDS);
    Thread writer =
        new Thread(
            () -> {
              try {
                while (System.nanoTime() - deadline < 0 && transactions.sum() < 200) {
                  List<Long> ids = new ArrayList<>();
                  a.inTransaction(
                      s -> {
                        for (int i = 0; i < 10; i++) {
                          long id = nextId.incrementAndGet();
                          nativeInsert(s, id);
                          ids.add(id);
                        }
                        long lo = ids.get(0);
                        long offset = 5_000_000;
                        s.createMutationQuery(
                                "insert into Shipment (id, destination) select e.id + :offset,"
                                    + " 'copy' from Shipment e where e.id between :lo and :hi")
                            .setParameter("offset", offset)
                            .setParameter("lo", lo)
                            .setParameter("hi", lo + 9)
                            .executeUpdate();
                        for (int i = 0; i < 10; i++) {
                          ids.add(lo + i + offset);
                        }
                      });
                  transactions.increment();
                  for (long id : ids) {
                    toB.put(id);
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                writerDone.set(true);
              }
            },
            "bulk-writer-on-A");
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      readers.add(
          new Thread(
              () -> {
                List<Long> batch = new ArrayList<>();
                try {
                  while (true) {
                    Long id = toB.poll(20, TimeUnit.MILLISECONDS);
                    if (id == null) {
                      if (writerDone.get() && toB.isEmpty()) {
                        return;
                      }
                      continue;
                    }
                    batch.clear();
                    batch.add(id);
                    toB.drainTo(batch, 49);
                    falseNegatives.add(nullsOn(b, batch));
                    pairs.add(batch.size());
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "reader-on-B-" + r));
    }
    LongAdder truthChecks = new LongAdder();
    LongAdder truthMissing = new LongAdder();
    AtomicReference<Throwable> truthFailure = new AtomicReference<>();
    Thread truth =
        new Thread(
            () -> {
              try (Connection c = DriverManager.getConnection(url, "sa", "");
                  PreparedStatement q =
                      c.prepareStatement("select id from Shipment where id >= ? order by id")) {
                while (!writerDone.get()) {
                  q.setLong(1, first);
                  try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                      long id = rs.getLong(1);
                      if (!HibernateCuckooGuards.of(b).mightContain(Shipment.class, id)) {
                        truthMissing.increment();
                      }
                      truthChecks.increment();
                    }
                  }
                  Thread.sleep(5);
                }
              } catch (SQLException | RuntimeException e) {
                truthFailure.set(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "truth");
    writer.start();
    readers.forEach(Thread::start);
    truth.start();
    writer.join();
    for (Thread t : readers) {
      t.join();
    }
    truth.join();
    System.out.printf(
        "bulk on A while B reads: %d transactions, %d rows found on B (false negatives %d);"
            + " committed rows checked on B %d, missing %d%n",
        transactions.sum(),
        pairs.sum(),
        falseNegatives.sum(),
        truthChecks.sum(),
        truthMissing.sum());
    assertThat(truthFailure.get()).isNull();
    assertThat(falseNegatives.sum()).isZero();
    assertThat(truthMissing.sum()).as("committed rows B reported absent").isZero();
    assertThat(transactions.sum()).isGreaterThanOrEqualTo(5);
    assertThat(truthChecks.sum()).as("the truth poller ran").isPositive();
    awaitAnswersAbsent(b); // not held for good once the statements stopped
  }

  @Test
  void rolledBackBulkInsertReleasesTheOtherInstance() throws Exception {
    awaitAnswersAbsent(b);
    List<Long> ids = new ArrayList<>();
    boolean held;
    try (Session s = a.openSession()) {
      Transaction tx = s.beginTransaction();
      for (int i = 0; i < 100; i++) {
        long id = nextId.incrementAndGet();
        nativeInsert(s, id);
        ids.add(id);
      }
      held = HibernateCuckooGuards.of(b).mightContain(Shipment.class, -1L);
      tx.rollback();
    }
    awaitAnswersAbsent(b); // released and rebuilt, not held for good
    long stillThere =
        ids.stream()
            .filter(id -> HibernateCuckooGuards.of(b).mightContain(Shipment.class, id))
            .count();
    assertThat(held).as("B passed through while the statement was open").isTrue();
    assertThat(stillThere)
        .as("B short-circuits the rolled-back ids (fpp 1 %% of 100)")
        .isLessThan(8);
    assertThat(nullsOn(b, ids)).as("no such rows").isEqualTo(ids.size());
  }

  /**
   * Instance C commits a native insert and its member dies right after the physical commit, before
   * its release can be sent (a synchronization's afterCompletion runs before the adapter's). B ends
   * C's hold when Hazelcast removes C, after marking its guard stale, and rescans: it finds every
   * row, and is not held for good.
   */
  @Test
  void holderDyingBetweenCommitAndReleaseLeavesNoFalseNegative() throws Exception {
    SessionFactory c = instance("c", false);
    HazelcastInstance memberC = members.get(members.size() - 1);
    awaitAnswersAbsent(c);
    awaitAnswersAbsent(b);
    List<Long> ids = new ArrayList<>();
    try (Session s = c.openSession()) {
      Transaction tx = s.beginTransaction();
      for (int i = 0; i < 100; i++) {
        long id = nextId.incrementAndGet();
        nativeInsert(s, id);
        ids.add(id);
      }
      tx.registerSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
              memberC.getLifecycleService().terminate(); // committed; no release will be sent
            }
          });
      tx.commit();
    }
    long nullsAtOnce = nullsOn(b, ids);
    awaitAnswersAbsent(b);
    long nullsAfter = nullsOn(b, ids);
    System.out.printf(
        "holder died after commit: %d rows; nulls on B at once %d, after its rebuild %d%n",
        ids.size(), nullsAtOnce, nullsAfter);
    assertThat(nullsAtOnce).isZero();
    assertThat(nullsAfter).isZero();
  }

  /**
   * Instance D runs a native insert, then its member is removed from the cluster before the commit
   * (a pause longer than Hazelcast's failure detection, modelled by terminating the member). B ends
   * D's hold a lease after the removal and rebuilds. D's commit must then fail (its fence in
   * before-completion finds it is no member any more) and roll back; without the fence it commits
   * and B answers "no such row" for all 100 rows.
   */
  @Test
  void holderRemovedBeforeItsCommitRollsBack() throws Exception {
    SessionFactory d = instance("d", false);
    HazelcastInstance memberD = members.get(members.size() - 1);
    awaitAnswersAbsent(d);
    awaitAnswersAbsent(b);
    List<Long> ids = new ArrayList<>();
    RuntimeException failure = null;
    try (Session s = d.openSession()) {
      Transaction tx = s.beginTransaction();
      for (int i = 0; i < 100; i++) {
        long id = nextId.incrementAndGet();
        nativeInsert(s, id);
        ids.add(id);
      }
      boolean held = HibernateCuckooGuards.of(b).mightContain(Shipment.class, -1L);
      memberD.getLifecycleService().terminate();
      awaitAnswersAbsent(b); // B ended D's hold and rebuilt before D's commit
      try {
        tx.commit();
      } catch (RuntimeException e) {
        failure = e;
      }
      assertThat(held).as("B was held while D's statement was open").isTrue();
    }
    long committed;
    try (Session s = b.openSession()) {
      committed =
          s.createNativeQuery(
                  "select count(*) from Shipment where id between :lo and :hi", Long.class)
              .setParameter("lo", ids.get(0))
              .setParameter("hi", ids.get(ids.size() - 1))
              .getSingleResult();
    }
    long absentOnB =
        committed == 0
            ? 0
            : ids.stream()
                .filter(id -> !HibernateCuckooGuards.of(b).mightContain(Shipment.class, id))
                .count();
    System.out.printf(
        "holder removed before its commit: commit failed %s, rows committed %d, absent on B %d%n",
        failure != null, committed, absentOnB);
    assertThat(absentOnB).as("committed rows B answers \"no such row\" for").isZero();
    assertThat(failure).as("D's commit failed").isNotNull();
    assertThat(committed).as("D's rows were rolled back").isZero();
  }
}
