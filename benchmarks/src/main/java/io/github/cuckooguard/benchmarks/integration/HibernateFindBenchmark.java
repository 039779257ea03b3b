package io.github.cuckooguard.benchmarks.integration;

import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.hibernate.EntityGuardStats;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.cfg.Configuration;
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
 * {@code Session.find} of an id with no row, and of one with a row, with the
 * cuckoo-guard-hibernate's guard on and off: one operation opens a session, finds one {@link Book}
 * and closes the session, which is what a request handler does.
 *
 * <p>The table holds {@code rows} books with the even ids {@code 2 … 2·rows}; probes are {@value
 * Fixtures#PROBES} of them, or of the odd ids in between, in a fixed random order. Without the
 * guard every find is one {@code select … where id = ?} on in-memory H2 (a connection from
 * Hibernate's built-in pool, no transaction). With it, an absent id is answered {@code null}
 * without a connection or SQL, except for the guard's false positives (target fpp {@value
 * CuckooGuardSettings#DEFAULT_FPP}, so about 1 % of the absent probes still query); a present id
 * costs the select plus one guard lookup. The guard is sized with {@code
 * hibernate.cuckoo.expected_insertions = rows} and awaited until warm before timing starts; at the
 * end of the trial the fork prints its counters (finds, short-circuits, false positives).
 *
 * <p>{@code guarded=false} sets {@code hibernate.cuckoo.enabled=false}, so the adapter registers
 * nothing and the session factory is plain Hibernate; both settings run in the same JMH run and
 * {@link GuardRatios} divides them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// Hibernate needs several seconds of calls before the JIT has compiled its find path: with 1 s of
// warm-up a find measures 60-200 µs instead of 4
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class HibernateFindBenchmark {

  /** Whether the guard is on ({@code hibernate.cuckoo.enabled}). */
  @Param({"true", "false"})
  public boolean guarded;

  /** Rows in the table. */
  @Param({"100000"})
  public int rows;

  SessionFactory sessionFactory;
  Long[] present;
  Long[] absent;
  int cursor;

  /**
   * Builds the session factory on a fresh in-memory database, inserts the rows in one transaction
   * and waits for the guard; then checks that a find does what this benchmark claims to time.
   *
   * @throws IllegalStateException if the guard is not warm after a minute, or a check fails
   */
  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    Fixtures.quietLogging();
    sessionFactory =
        new Configuration()
            .addAnnotatedClass(Book.class)
            .setProperty(
                "jakarta.persistence.jdbc.url", "jdbc:h2:mem:find-benchmark;DB_CLOSE_DELAY=-1")
            .setProperty("jakarta.persistence.jdbc.user", "sa")
            .setProperty("jakarta.persistence.jdbc.password", "")
            .setProperty("hibernate.hbm2ddl.auto", "create")
            .setProperty(CuckooGuardSettings.ENABLED, String.valueOf(guarded))
            .setProperty(CuckooGuardSettings.EXPECTED_INSERTIONS, String.valueOf(rows))
            .buildSessionFactory();
    insertRows();
    present = Fixtures.probes(rows, true, id -> true);
    absent = Fixtures.probes(rows, false, id -> true);
    if (guarded && !HibernateCuckooGuards.of(sessionFactory).awaitWarmUp(Duration.ofMinutes(1))) {
      throw new IllegalStateException("guard not warm after 1 min: " + guardStats());
    }
    check();
  }

  private void insertRows() {
    try (StatelessSession session = sessionFactory.openStatelessSession()) {
      session.setJdbcBatchSize(1_000);
      session.beginTransaction();
      for (int i = 0; i < rows; i++) {
        session.insert(new Book(Fixtures.presentKey(i), "book " + i));
      }
      session.getTransaction().commit();
    }
  }

  /**
   * Every present probe is found and every absent one is not, and the guard answers most absent
   * ones alone. Runs the same finds with and without the guard, so both warm up alike.
   */
  private void check() {
    long before = guarded ? guardStats().shortCircuits() : 0;
    for (int i = 0; i < Fixtures.PROBES; i++) {
      if (find(present[i]) == null || find(absent[i]) != null) {
        throw new IllegalStateException(
            "find does not see exactly the inserted rows: id " + present[i] + " or " + absent[i]);
      }
    }
    if (guarded) {
      long shortCircuits = guardStats().shortCircuits() - before;
      if (shortCircuits < absent.length * 9 / 10) {
        throw new IllegalStateException(
            "the guard answered only "
                + shortCircuits
                + " of "
                + absent.length
                + " finds of absent ids: "
                + guardStats());
      }
    }
  }

  private Book find(Long id) {
    try (Session session = sessionFactory.openSession()) {
      return session.find(Book.class, id);
    }
  }

  private EntityGuardStats guardStats() {
    return HibernateCuckooGuards.of(sessionFactory).stats(Book.class);
  }

  /** Prints the guard's counters for the trial, then closes the factory. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (guarded) {
      EntityGuardStats stats = guardStats();
      System.out.printf(
          "%nguard: %d finds, %d short-circuited (%.2f %%), %d false positives; %d ids, %d bytes,"
              + " %d rebuilds%n",
          stats.finds(),
          stats.shortCircuits(),
          100.0 * stats.shortCircuits() / Math.max(1, stats.finds()),
          stats.falsePositives(),
          stats.guard().size(),
          stats.guard().sizeInBytes(),
          stats.guard().rebuilds());
    }
    sessionFactory.close();
  }

  /** One find of an id that has no row. */
  @Benchmark
  public Book findAbsent() {
    return find(absent[cursor++ & (Fixtures.PROBES - 1)]);
  }

  /** One find of an id that has a row. */
  @Benchmark
  public Book findPresent() {
    return find(present[cursor++ & (Fixtures.PROBES - 1)]);
  }
}
