package io.github.cuckooguard.samples.cdn;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.samples.Options;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The CDN story at a reduced size (a few seconds), and the check that counts false negatives. */
class CdnEdgeStoryTest {

  static CdnEdgeStory.Outcome outcome;
  static String printed;

  @BeforeAll
  static void runStory() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    outcome =
        CdnEdgeStory.run(
            Options.parse(
                "cdn",
                "--duration",
                "1",
                "--warmup",
                "0.5",
                "--catalog",
                "2000",
                "--memory-tier",
                "50",
                "--peer-tier",
                "1000",
                "--ttl",
                "0.5",
                "--origin-ms",
                "0.2"),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    printed = bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyAnswerIsTheOriginsContentAndNoDefiniteMissWasStored() {
    assertThat(outcome.guarded().wrongAnswers()).isZero();
    assertThat(outcome.unguarded().wrongAnswers()).isZero();
    assertThat(outcome.guarded().falseNegatives()).isZero();
    assertThat(outcome.wrongAnswers()).isZero();
  }

  @Test
  void theGuardAvoidsProbesAndTheUnguardedEdgeAvoidsNone() {
    CdnEdgeStory.Phase with = outcome.guarded();
    CdnEdgeStory.Phase without = outcome.unguarded();

    assertThat(outcome.lookupsAvoided()).isEqualTo(with.probesAvoided()).isPositive();
    assertThat(without.probesAvoided()).isZero();
    // without a guard every miss of the memory tier is probed; with it, only the "might contain"
    // ones
    assertThat(without.probes()).isEqualTo(without.load().requests() - without.memoryHits());
    assertThat(with.probes() + with.probesAvoided())
        .isEqualTo(with.load().requests() - with.memoryHits());
    // a request that is neither a memory hit nor a probe hit goes to the origin
    assertThat(with.originFetches())
        .isEqualTo(with.load().requests() - with.memoryHits() - with.probeHits());
    assertThat(without.originFetches())
        .isEqualTo(without.load().requests() - without.memoryHits() - without.probeHits());
  }

  @Test
  void theReportShowsTheFiguresThatMatter() {
    assertThat(printed)
        .contains(
            "== CDN edge",
            "probes avoided",
            "origin fetches",
            "latency p99",
            "observed fpp",
            "false negatives (checked against the store)");
  }

  @Test
  void theFalseNegativeCheckRecognisesAnItemStoredBeforeTheQuestion() throws Exception {
    try (StorageNode node = new StorageNode(100, Duration.ofMinutes(1), 0.01, true)) {
      long beforeStore = System.nanoTime();
      HttpResponse<Void> put =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(node.items() + "/video/1"))
                      .PUT(HttpRequest.BodyPublishers.ofString("x"))
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
      long afterStore = System.nanoTime();

      assertThat(put.statusCode()).isEqualTo(204);
      assertThat(node.storedContinuouslySince("/video/1", afterStore))
          .isTrue(); // a "no" now would be wrong
      assertThat(node.storedContinuouslySince("/video/1", beforeStore))
          .isFalse(); // a "no" then was right
      assertThat(node.storedContinuouslySince("/video/2", afterStore)).isFalse();
      assertThat(node.guard().mightContain("/video/1")).isTrue();
    }
  }
}
