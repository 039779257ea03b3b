package io.github.cuckooguard.samples.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.samples.Options;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JCache story at a reduced size: 2,000 entries, one second per variant, then member A leaves.
 */
class JCacheClusterStoryTest {

  static JCacheClusterStory.Outcome outcome;
  static String printed;

  @BeforeAll
  static void runStory() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    outcome =
        JCacheClusterStory.run(
            Options.parse("jcache", "--entries", "2000", "--duration", "1", "--warmup", "0"),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    printed = bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyGetIsRightBeforeDuringAndAfterTheMemberLeaves() {
    assertThat(outcome.guarded().wrongAnswers()).isZero();
    assertThat(outcome.plain().wrongAnswers()).isZero();
    assertThat(outcome.recovery().wrongAnswers()).isZero();
    assertThat(outcome.wrongAnswers()).isZero();
  }

  @Test
  void negativeGetsSkipTheRoundTripOnlyWithTheGuard() {
    assertThat(outcome.lookupsAvoided()).isPositive();
    assertThat(outcome.plain().roundTrips()).isEqualTo(outcome.plain().load().requests());
    assertThat(outcome.guarded().roundTrips()).isLessThan(outcome.guarded().load().requests());
  }

  @Test
  void entriesWrittenOnTheOtherMemberReachTheGuardOneFingerprintEach() {
    assertThat(outcome.written()).isPositive();
    long entries = 2_000L + outcome.written();
    // At least one fingerprint per entry: every put on A waited for B's guard to hold the key
    // (the cache's guard group). A few more are spare copies cuckoo-guard-jcache documents (an
    // enter whose write turned out a replace stays: a false positive, never a false negative). A
    // second fingerprint for every entry would be 100 % over; 10 % catches that.
    assertThat(outcome.guard().size()).isBetween(entries, entries + entries / 10);
  }

  @Test
  void afterTheMemberLeftTheGuardRereadsTheCacheAndShortCircuitsAgain() {
    JCacheClusterStory.Recovery recovery = outcome.recovery();

    assertThat(recovery.keysChecked()).isEqualTo(2_000L + outcome.written());
    // 10,000 absent keys against a filter of about 2,000 keys at a 1 % target: about 10 false
    // positives
    // are expected; fewer than 9,500 answered (5 % let through) is practically impossible unless
    // broken
    assertThat(recovery.absentShortCircuited()).isGreaterThan(9_500);
  }

  @Test
  void theReportShowsTheFiguresThatMatter() {
    assertThat(printed)
        .contains(
            "== JCache cluster",
            "round trips avoided",
            "negative get, mean",
            "member A left",
            "observed fpp");
  }
}
