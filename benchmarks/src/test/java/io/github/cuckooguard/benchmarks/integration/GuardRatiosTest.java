package io.github.cuckooguard.benchmarks.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.benchmarks.integration.GuardRatios.Score;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GuardRatiosTest {

  private static Score score(String benchmark, String guarded, String keyOwner, double score) {
    return new Score(
        benchmark,
        Map.of("guarded", guarded, "keyOwner", keyOwner, "entries", "100"),
        score,
        0.5,
        "us/op");
  }

  @Test
  void dividesTheGuardedScoreByTheUnguardedOneOfTheSameSetting() {
    String table =
        GuardRatios.table(
            List.of(
                score("JCacheClusterGetBenchmark.getAbsent", "false", "A", 80.0),
                score("JCacheClusterGetBenchmark.getAbsent", "true", "A", 0.8),
                score("JCacheClusterGetBenchmark.getAbsent", "true", "any", 0.5),
                score("JCacheClusterGetBenchmark.getAbsent", "false", "any", 50.0)));

    assertThat(table.lines())
        .containsExactly(
            "| benchmark | setting | guarded | unguarded | guarded / unguarded |",
            "|---|---|---:|---:|---:|",
            "| JCacheClusterGetBenchmark.getAbsent | {entries=100, keyOwner=A} | 0.800 ± 0.500 us/op"
                + " | 80.000 ± 0.500 us/op | 0.010 |",
            "| JCacheClusterGetBenchmark.getAbsent | {entries=100, keyOwner=any} | 0.500 ± 0.500 us/op"
                + " | 50.000 ± 0.500 us/op | 0.010 |");
  }

  @Test
  void leavesOutScoresWithoutAPartnerAndNeverPairsDifferentBenchmarksOrSettings() {
    String table =
        GuardRatios.table(
            List.of(
                score("JCacheClusterGetBenchmark.getAbsent", "true", "A", 0.8),
                score("JCacheClusterGetBenchmark.getPresent", "false", "A", 90.0),
                score("JCacheClusterGetBenchmark.getPresent", "true", "any", 90.0),
                new Score(
                    "LookupBenchmark.oneThread",
                    Map.of("impl", "OURS_12"),
                    20.0,
                    Double.NaN,
                    "ns/op")));

    assertThat(table.lines()).hasSize(2); // the header alone
  }
}
