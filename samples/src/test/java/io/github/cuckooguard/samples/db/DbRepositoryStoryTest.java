package io.github.cuckooguard.samples.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.samples.Options;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The DB story at a reduced size: 5,000 rows, one second per stream. */
class DbRepositoryStoryTest {

  static DbRepositoryStory.Outcome outcome;
  static String printed;

  @BeforeAll
  static void runStory() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    outcome =
        DbRepositoryStory.run(
            Options.parse(
                "db",
                "--rows",
                "5000",
                "--duration",
                "1",
                "--warmup",
                "0.5",
                "--write-share",
                "0.1"),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    printed = bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyAnswerMatchesTheTable() {
    assertThat(outcome.guarded().checked()).isPositive();
    assertThat(outcome.guarded().wrongAnswers()).isZero();
    assertThat(outcome.plain().wrongAnswers()).isZero();
    assertThat(outcome.guarded().auditWrong()).isZero();
    assertThat(outcome.plain().auditWrong()).isZero();
    assertThat(outcome.tableMismatches()).isZero();
    assertThat(outcome.wrongAnswers()).isZero();
  }

  @Test
  void twoInstancesBehindARoundRobinNeverMissARowTheOtherCommitted() {
    assertThat(outcome.twoInstances().crossReads()).isGreaterThan(20);
    assertThat(outcome.twoInstances().deletes()).isPositive();
    assertThat(outcome.twoInstances().absentShortCircuits()).isPositive();
    assertThat(outcome.twoInstances().wrongAnswers()).isZero();
    assertThat(printed).contains("two instances behind a round-robin");
  }

  @Test
  void rowsWereInsertedAndDeletedWhileFindsRan() {
    assertThat(outcome.guarded().inserts() + outcome.plain().inserts()).isPositive();
    assertThat(outcome.guarded().deletes() + outcome.plain().deletes()).isPositive();
    assertThat(outcome.guarded().findsOfAbsentIds()).isPositive();
  }

  @Test
  void eachFindTheSpringGuardAnswersCostsNoTransaction() {
    DbRepositoryStory.Phase with = outcome.guarded();
    DbRepositoryStory.Phase without = outcome.plain();

    assertThat(outcome.springShortCircuits()).isPositive();
    assertThat(outcome.lookupsAvoided()).isPositive();
    // every request begins one transaction, except the finds the guard answered and writes with
    // nothing to do
    assertThat(with.transactions())
        .isEqualTo(with.load().requests() - outcome.springShortCircuits() - with.skippedWrites());
    assertThat(without.transactions())
        .isEqualTo(without.load().requests() - without.skippedWrites());
  }

  @Test
  void bothGuardsHoldExactlyOneFingerprintPerRowAfterTheRun() {
    assertThat(outcome.springGuard().size()).isEqualTo(outcome.rowsAtEnd());
    assertThat(outcome.hibernateGuard().guard().size()).isEqualTo(outcome.rowsAtEnd());
    assertThat(outcome.springGuard().passThrough()).isFalse();
  }

  @Test
  void theReportShowsTheFiguresThatMatter() {
    assertThat(printed)
        .contains(
            "== DB-backed repository",
            "SQL statements per request",
            "requests per second",
            "finds answered by the Spring guard",
            "wrong answers",
            "observed fpp");
  }
}
