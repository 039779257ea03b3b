package io.github.cuckooguard.samples.db;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.hibernate.EntityGuardStats;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import io.github.cuckooguard.samples.Options;
import io.github.cuckooguard.samples.Report;
import io.github.cuckooguard.samples.StoryOutcome;
import io.github.cuckooguard.samples.Workload;
import jakarta.persistence.EntityManagerFactory;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.hibernate.SessionFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * Story 2, a DB-backed repository. A Spring application serves articles from a JPA repository on
 * H2; a share of the requests asks for ids that do not exist, while other requests insert and
 * delete articles. With the guards on, a find of an absent id is answered by the Spring guard in
 * front of the repository (no transaction, no connection, no SQL); the few that pass it (false
 * positives) meet Hibernate's guard under the repository (no SQL).
 *
 * <p>Two instances of the application run on the same table: one with both guards, one with
 * neither. They serve the same request streams in alternating slices. The finds of each stream go
 * to its own application; the inserts and deletes of both streams go to the guarded one, which must
 * see every write to stay exact (a write made behind its back would need {@code
 * HibernateCuckooGuards.markStale}). Every answer is checked: against the {@link IdBook} while
 * requests run, and against the table itself afterwards.
 *
 * <p>Then the service runs as two guarded instances behind a round-robin balancer, joined over
 * Hazelcast ({@link TwoInstances}): a row inserted on one is read back on the other right after its
 * commit, and never reported missing.
 */
public final class DbRepositoryStory {

  private static final int AUDIT_FINDS = 10_000;

  private DbRepositoryStory() {}

  /**
   * What one request stream measured.
   *
   * @param skippedWrites writes that found nothing to do (no fresh id left, or no present id found)
   * @param statements SQL statements Hibernate prepared for the stream's requests
   * @param transactions transactions begun for the stream's requests
   * @param checked finds whose answer could be checked (the id did not change meanwhile)
   * @param auditWrong wrong answers among {@value #AUDIT_FINDS} finds checked against the table
   */
  public record Phase(
      Workload.Result load,
      long finds,
      long findsOfAbsentIds,
      long absentFindNanos,
      long presentFindNanos,
      long inserts,
      long deletes,
      long skippedWrites,
      long statements,
      long transactions,
      long checked,
      long wrongAnswers,
      long auditWrong) {

    /** Mean time of a find of an id that did not exist, in microseconds. */
    double absentFindMicros() {
      return absentFindNanos / 1e3 / Math.max(1, findsOfAbsentIds);
    }

    /** Mean time of a find of an id that existed, in microseconds. */
    double presentFindMicros() {
      return presentFindNanos / 1e3 / Math.max(1, finds - findsOfAbsentIds);
    }
  }

  /**
   * Both streams and the guards.
   *
   * @param springShortCircuits finds the Spring guard answered while the streams ran
   * @param hibernateShortCircuits finds Hibernate's guard answered while the streams ran
   * @param rowsAtEnd rows in the table after the run
   * @param tableMismatches ids where the book and the table disagree at the end (must be 0)
   */
  public record Outcome(
      Options options,
      Duration loadTime,
      Phase guarded,
      Phase plain,
      long springShortCircuits,
      long hibernateShortCircuits,
      long rowsAtEnd,
      long tableMismatches,
      GuardStats springGuard,
      EntityGuardStats hibernateGuard,
      TwoInstances.Result twoInstances)
      implements StoryOutcome {
    @Override
    public String story() {
      return "db";
    }

    @Override
    public Report report() {
      return DbRepositoryStory.report(this);
    }

    @Override
    public long wrongAnswers() {
      return guarded.wrongAnswers
          + guarded.auditWrong
          + plain.wrongAnswers
          + plain.auditWrong
          + tableMismatches
          + twoInstances.wrongAnswers();
    }

    @Override
    public long lookupsAvoided() {
      return springShortCircuits + hibernateShortCircuits;
    }

    @Override
    public List<String> summary() {
      return List.of(
          String.format(
              Locale.ROOT,
              "db      %,d SQL round trips avoided; %.2f statements per request with guards, %.2f without;"
                  + " %,.0f vs %,.0f requests/s; %,d wrong answers",
              lookupsAvoided(),
              perRequest(guarded),
              perRequest(plain),
              guarded.load.perSecond(),
              plain.load.perSecond(),
              wrongAnswers()),
          String.format(
              Locale.ROOT,
              "        two instances behind a round-robin: %,d rows read back on the other"
                  + " instance right after commit, %,d wrong answers",
              twoInstances.crossReads(),
              twoInstances.wrongAnswers()));
    }
  }

  /** Runs the story with {@code options} and prints its progress and report to {@code out}. */
  public static Outcome run(Options options, PrintStream out) throws Exception {
    int rows = options.rows();
    out.printf(
        Locale.ROOT,
        "%nDB-backed repository: %,d articles in H2, %s of finds for absent ids, %s of"
            + " requests insert or delete, %d request threads%n",
        rows,
        Report.percent(options.missShare()),
        Report.percent(options.writeShare()),
        options.threads());
    JdbcDataSource jdbc = new JdbcDataSource();
    jdbc.setURL("jdbc:h2:mem:catalog-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    jdbc.setUser("sa");
    try {
      long start = System.nanoTime();
      out.printf("  loading %,d rows over JDBC%n", rows);
      Table.createAndLoad(jdbc, rows, out);
      Duration loadTime = Duration.ofNanos(System.nanoTime() - start);
      Outcome served = serve(options, jdbc, loadTime, out);
      TwoInstances.Result twoInstances =
          TwoInstances.run(
              options.seed(),
              Duration.ofSeconds(Math.max(3, Math.min(5, options.duration().toSeconds()))),
              out); // small: a check, not a benchmark
      return new Outcome(
          served.options(),
          served.loadTime(),
          served.guarded(),
          served.plain(),
          served.springShortCircuits(),
          served.hibernateShortCircuits(),
          served.rowsAtEnd(),
          served.tableMismatches(),
          served.springGuard(),
          served.hibernateGuard(),
          twoInstances);
    } finally {
      try (Connection connection = jdbc.getConnection();
          Statement shutdown = connection.createStatement()) {
        shutdown.execute("shutdown"); // drops the in-memory database
      }
    }
  }

  private static Outcome serve(
      Options options, JdbcDataSource jdbc, Duration loadTime, PrintStream out) throws Exception {
    Meter meter = new Meter();
    CatalogConfig.Settings guardedSettings =
        new CatalogConfig.Settings(
            jdbc.getURL(),
            options.threads() + 2,
            true,
            Math.round(options.rows() * 1.25),
            options.fpp());
    CatalogConfig.Settings plainSettings =
        new CatalogConfig.Settings(
            jdbc.getURL(),
            options.threads() + 2,
            false,
            guardedSettings.expectedRows(),
            options.fpp());
    out.println(
        "  starting the application twice: with @EnableCuckooGuard and hibernate.cuckoo.enabled=true,"
            + " and with neither");
    try (AnnotationConfigApplicationContext guardedApp =
            start(GuardedCatalogConfig.class, guardedSettings, meter);
        AnnotationConfigApplicationContext plainApp =
            start(CatalogConfig.class, plainSettings, meter)) {
      Guards guards = Guards.of(guardedApp, out);
      ArticleRepository guarded = guardedApp.getBean(ArticleRepository.class);
      ArticleRepository plain = plainApp.getBean(ArticleRepository.class);
      IdBook book = new IdBook(options.rows());
      if (!options.warmup().isZero()) {
        out.println("  warm-up (not measured)");
        Workload.run(
            options.threads(),
            options.warmup(),
            options.seed() + 1,
            out,
            new Stream("with guards", guarded, guarded, book, options, meter).variant(),
            new Stream("without guards", plain, guarded, book, options, meter).variant());
      }
      Stream withGuards = new Stream("with guards", guarded, guarded, book, options, meter);
      Stream withoutGuards = new Stream("without guards", plain, guarded, book, options, meter);
      long springBefore = guards.springShortCircuits();
      long hibernateBefore = guards.hibernateShortCircuits();
      List<Workload.Result> results =
          Workload.run(
              options.threads(),
              options.duration(),
              options.seed(),
              out,
              withGuards.variant(),
              withoutGuards.variant());
      long spring = guards.springShortCircuits() - springBefore;
      long hibernate = guards.hibernateShortCircuits() - hibernateBefore;
      BitSet table = Table.ids(jdbc);
      long mismatches = book.mismatches(table);
      Phase with = withGuards.phase(results.get(0), audit(guarded, book, table, options.seed()));
      Phase without =
          withoutGuards.phase(results.get(1), audit(plain, book, table, options.seed()));
      out.printf(
          Locale.ROOT,
          "  checked %,d answers while running, then %,d finds per application against the"
              + " table%n",
          with.checked + without.checked,
          AUDIT_FINDS);
      Outcome outcome =
          new Outcome(
              options,
              loadTime,
              with,
              without,
              spring,
              hibernate,
              table.cardinality(),
              mismatches,
              guards.spring.stats(),
              guards.hibernateStats(),
              new TwoInstances.Result(0, 0, 0, 0, 0, 0, Duration.ZERO));
      outcome.report().print(out);
      return outcome;
    }
  }

  private static AnnotationConfigApplicationContext start(
      Class<?> configuration, CatalogConfig.Settings settings, Meter meter) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.registerBean(CatalogConfig.Settings.class, () -> settings);
    context.registerBean(Meter.class, () -> meter);
    context.register(configuration);
    context.refresh();
    return context;
  }

  /**
   * One request stream: finds through {@code reader}, writes through {@code writer}, counted apart.
   */
  private static final class Stream {
    final String name;
    final ArticleRepository reader;
    final ArticleRepository writer;
    final CatalogTraffic traffic;
    final Meter meter;
    final Meter.Tally tally = new Meter.Tally();

    Stream(
        String name,
        ArticleRepository reader,
        ArticleRepository writer,
        IdBook book,
        Options options,
        Meter meter) {
      this.name = name;
      this.reader = reader;
      this.writer = writer;
      this.traffic = new CatalogTraffic(book, options.missShare(), options.writeShare());
      this.meter = meter;
    }

    Workload.Variant variant() {
      return new Workload.Variant(
          name,
          (thread, random) -> {
            meter.countIn(tally);
            traffic.serve(reader, writer, random);
          });
    }

    Phase phase(Workload.Result load, long auditWrong) {
      return new Phase(
          load,
          traffic.finds.sum(),
          traffic.findsOfAbsentIds.sum(),
          traffic.absentFindNanos.sum(),
          traffic.presentFindNanos.sum(),
          traffic.inserts.sum(),
          traffic.deletes.sum(),
          traffic.skipped.sum(),
          tally.statements(),
          tally.transactions(),
          traffic.checked.sum(),
          traffic.wrongAnswers.sum(),
          auditWrong);
    }
  }

  /** Finds of known, recently deleted and never-existing ids, each compared with the table. */
  private static long audit(ArticleRepository repository, IdBook book, BitSet table, long seed) {
    SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
    long wrong = 0;
    for (int i = 0; i < AUDIT_FINDS; i++) {
      long id = i % 2 == 0 ? book.knownId(random) : book.missingId(random);
      boolean inTable = id <= Integer.MAX_VALUE && table.get((int) id);
      if ((repository.findById(id) != null) != inTable) {
        wrong++;
      }
    }
    return wrong;
  }

  /** The two guards of the guarded application. */
  private record Guards(CuckooGuard<Object> spring, HibernateCuckooGuards hibernate) {

    /** Finds the guards and waits, printing progress, until both finished their warm-up scans. */
    @SuppressWarnings("unchecked")
    static Guards of(AnnotationConfigApplicationContext context, PrintStream out)
        throws InterruptedException {
      CuckooGuard<Object> spring = context.getBean("articles", CuckooGuard.class);
      HibernateCuckooGuards hibernate =
          HibernateCuckooGuards.of(
              context.getBean(EntityManagerFactory.class).unwrap(SessionFactory.class));
      long start = System.nanoTime();
      long lastPrint = start;
      while (!hibernate.awaitWarmUp(Duration.ofMillis(100)) || spring.isPassThrough()) {
        long now = System.nanoTime();
        if (now - start > Duration.ofMinutes(2).toNanos()) {
          throw new IllegalStateException(
              "the guards did not finish their warm-up in 2 minutes: "
                  + spring.stats()
                  + ", "
                  + hibernate.stats(Article.class));
        }
        if (now - lastPrint >= 2_000_000_000L) {
          lastPrint = now;
          out.printf(
              Locale.ROOT,
              "    warming up: both guards scan the ids of the table (%.0f s)%n",
              (now - start) / 1e9);
        }
        Thread.sleep(10);
      }
      out.printf(
          Locale.ROOT,
          "    guards ready: their warm-up scans of the ids took %.1f s (Spring) and %.1f s"
              + " (Hibernate)%n",
          seconds(spring.stats().lastRebuildDuration()),
          seconds(hibernate.stats(Article.class).guard().lastRebuildDuration()));
      return new Guards(spring, hibernate);
    }

    long springShortCircuits() {
      return spring.stats().definiteMisses();
    }

    long hibernateShortCircuits() {
      return hibernate.stats(Article.class).shortCircuits();
    }

    EntityGuardStats hibernateStats() {
      return hibernate.stats(Article.class);
    }
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1e3;
  }

  private static String micros(double micros) {
    return String.format(Locale.ROOT, "%.1f µs", micros);
  }

  private static double perRequest(Phase phase) {
    return (double) phase.statements / Math.max(1, phase.load.requests());
  }

  private static Report report(Outcome o) {
    Options options = o.options;
    Phase with = o.guarded;
    Phase without = o.plain;
    Report report = new Report("DB-backed repository", "with guards", "without guards");
    report
        .row("requests", with.load.requests(), without.load.requests())
        .row("requests per second", with.load.perSecond(), without.load.perSecond())
        .row("finds", with.finds, without.finds)
        .row("  of ids that do not exist", with.findsOfAbsentIds, without.findsOfAbsentIds)
        .row(
            "find of an absent id, mean",
            micros(with.absentFindMicros()),
            micros(without.absentFindMicros()))
        .row(
            "find of an existing id, mean",
            micros(with.presentFindMicros()),
            micros(without.presentFindMicros()))
        .row(
            "inserts / deletes",
            Report.format(with.inserts) + " / " + Report.format(with.deletes),
            Report.format(without.inserts) + " / " + Report.format(without.deletes))
        .row("transactions begun", with.transactions, without.transactions)
        .row("SQL statements", with.statements, without.statements)
        .row("SQL statements per request", perRequest(with), perRequest(without))
        .row("finds answered by the Spring guard", o.springShortCircuits, "-")
        .row("finds answered by Hibernate's guard", o.hibernateShortCircuits, "-")
        .row("answers checked while running", with.checked, without.checked)
        .row("wrong answers", with.wrongAnswers, without.wrongAnswers)
        .row(
            "wrong answers, " + AUDIT_FINDS + " finds vs the table",
            with.auditWrong,
            without.auditWrong);
    report.note(
        "SQL avoided: %,d finds never reached the repository (no transaction, no connection, no SELECT);"
            + " %,d more reached Hibernate and ran no SELECT",
        o.springShortCircuits, o.hibernateShortCircuits);
    GuardStats s = o.springGuard;
    report.note(
        "Spring guard 'articles': %,d ids in %s, observed fpp %s (target %s, set by its annotation),"
            + " warm-up scan %.1f s",
        s.size(),
        Report.bytes(s.sizeInBytes()),
        Report.percent(s.observedFpp()),
        Report.percent(0.01),
        seconds(s.lastRebuildDuration()));
    GuardStats h = o.hibernateGuard.guard();
    report.note(
        "Hibernate guard 'Article': %,d ids in %s, target fpp %s, %,d finds asked it, %,d false"
            + " positives, warm-up scan %.1f s",
        h.size(),
        Report.bytes(h.sizeInBytes()),
        Report.percent(options.fpp()),
        o.hibernateGuard.finds(),
        o.hibernateGuard.falsePositives(),
        seconds(h.lastRebuildDuration()));
    report.note(
        "table: %,d rows loaded over JDBC in %.1f s; at the end %,d rows, and %,d ids where the book and"
            + " the table disagree",
        options.rows(), seconds(o.loadTime), o.rowsAtEnd, o.tableMismatches);
    return report;
  }
}
