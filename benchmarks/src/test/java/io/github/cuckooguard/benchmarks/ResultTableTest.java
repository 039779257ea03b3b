package io.github.cuckooguard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.benchmarks.ResultTable.Ratio;
import io.github.cuckooguard.benchmarks.ResultTable.Result;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultTableTest {

  /** A JMH result entry as JMH 1.37 writes it with -rf json (trimmed to the fields read). */
  private static String entry(
      String method, int threads, String params, double score, String secondary) {
    return """
        {"jmhVersion":"1.37","benchmark":"io.github.cuckooguard.benchmarks.%s","mode":"avgt","threads":%d,
         "forks":1,"params":{%s},
         "primaryMetric":{"score":%s,"scoreError":"NaN","scoreConfidence":[1.0,2.0],"scoreUnit":"ns/op",
           "rawData":[[1.5e1]]},
         "secondaryMetrics":{%s}}
        """
        .formatted(method, threads, params, score, secondary);
  }

  private static String lookup(String method, int threads, String impl, double score) {
    return entry(
        method,
        threads,
        "\"impl\":\"" + impl + "\",\"n\":\"1000000\",\"positivePercent\":\"50\"",
        score,
        "\"found\":{\"score\":5.0,\"scoreUnit\":\"#\"},\"notFound\":{\"score\":5.0,\"scoreUnit\":\"#\"},"
            + "\"gc.alloc.rate.norm\":{\"score\":1.0E-4,\"scoreUnit\":\"B/op\"}");
  }

  private static final String RESULTS =
      "["
          + String.join(
              ",",
              lookup("LookupBenchmark.oneThread", 1, "OURS_8", 20.0),
              lookup("LookupBenchmark.oneThread", 1, "FF_CUCKOO_8", 25.0),
              lookup("LookupBenchmark.oneThread", 1, "GUAVA_8", 30.0),
              lookup("LookupBenchmark.twoThreads", 2, "OURS_8", 21.0),
              entry(
                  "ConcurrentMixBenchmark.mixed",
                  2,
                  "\"impl\":\"OURS_12\",\"n\":\"1000000\"",
                  40.0,
                  "\"reader\":{\"score\":25.0},\"writer\":{\"score\":54.0}"),
              entry(
                  "ConcurrentMixBenchmark.alone",
                  1,
                  "\"impl\":\"OURS_12\",\"n\":\"1000000\"",
                  20.0,
                  ""))
          + "]";

  @Test
  void readsJmhJson() {
    List<Result> results = ResultTable.read(RESULTS);
    assertThat(results).hasSize(6);
    Result first = results.get(0);
    assertThat(first.benchmark()).isEqualTo("LookupBenchmark.oneThread");
    assertThat(first.impl()).isEqualTo("OURS_8");
    assertThat(first.score()).isEqualTo(20.0);
    assertThat(first.error()).isNaN();
    assertThat(first.secondary()).containsEntry("found", 5.0);
    assertThat(results.get(4).secondary()).isEqualTo(Map.of("reader", 25.0, "writer", 54.0));
  }

  @Test
  void computesTheIssueRatiosAndVerdicts() {
    List<Ratio> ratios = ResultTable.ratios(ResultTable.read(RESULTS));
    assertThat(ratios)
        .anySatisfy(
            r -> {
              assertThat(r.theirs()).isEqualTo("FF_CUCKOO_8");
              assertThat(r.value()).isEqualTo(0.8);
              assertThat(r.met()).isTrue();
            });
    assertThat(ratios)
        .anySatisfy(
            r -> {
              assertThat(r.theirs()).isEqualTo("GUAVA_8");
              assertThat(r.value()).isCloseTo(2.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
              assertThat(r.met()).isFalse(); // target 0.5
            });
    assertThat(ratios)
        .anySatisfy(
            r -> {
              assertThat(r.question()).startsWith("2-thread");
              assertThat(r.value()).isCloseTo(40.0 / 21, org.assertj.core.data.Offset.offset(1e-9));
              assertThat(r.met()).isTrue();
            });
    assertThat(ratios)
        .anySatisfy(
            r -> {
              assertThat(r.question()).startsWith("reader slowdown");
              assertThat(r.value()).isCloseTo(0.25, org.assertj.core.data.Offset.offset(1e-9));
              assertThat(r.met()).isTrue();
            });
    assertThat(ratios)
        .filteredOn(r -> r.question().startsWith("allocation"))
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.met()).isTrue());
  }

  @Test
  void printsOneRowPerResultWithTheAnswerShare() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ResultTable.print(
        ResultTable.read(RESULTS), new PrintStream(out, true, StandardCharsets.UTF_8));
    String md = out.toString(StandardCharsets.UTF_8);
    assertThat(md)
        .contains(
            "| LookupBenchmark.oneThread | OURS_8 | {n=1000000, positivePercent=50} | 1 | 20.00 |"
                + "  | ns/op | 50.00 % | 0.000 |");
    assertThat(md).contains("| reader slowdown from a concurrent writer |");
  }

  @Test
  void rejectsMalformedJson() {
    assertThatThrownBy(() -> Json.parse("[{\"a\":1,}]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offset");
    assertThatThrownBy(() -> Json.parse("[1] x")).hasMessageContaining("trailing");
    assertThat(Json.parse("{\"s\":\"a\\\"b\\u0041\",\"l\":[true,false,null,-1.5e2]}"))
        .isEqualTo(Map.of("s", "a\"bA", "l", java.util.Arrays.asList(true, false, null, -150.0)));
  }
}
