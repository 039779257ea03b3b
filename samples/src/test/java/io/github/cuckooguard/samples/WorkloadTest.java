package io.github.cuckooguard.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class WorkloadTest {

  private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

  @Test
  void bothVariantsReplayTheSameRequestStreamsPerThread() throws Exception {
    List<List<Long>> first = List.of(new ArrayList<>(), new ArrayList<>());
    List<List<Long>> second = List.of(new ArrayList<>(), new ArrayList<>());

    List<Workload.Result> results =
        Workload.run(
            2,
            Duration.ofMillis(300),
            7,
            QUIET,
            new Workload.Variant(
                "a", (thread, random) -> first.get(thread).add(slowly(random.nextLong()))),
            new Workload.Variant(
                "b", (thread, random) -> second.get(thread).add(slowly(random.nextLong()))));

    assertThat(results).hasSize(2);
    assertThat(results.get(0).requests()).isEqualTo(first.get(0).size() + first.get(1).size());
    assertThat(results.get(0).latencies().count()).isEqualTo(results.get(0).requests());
    for (int thread = 0; thread < 2; thread++) {
      List<Long> a = first.get(thread);
      List<Long> b = second.get(thread);
      int common = Math.min(a.size(), b.size());
      assertThat(common).isPositive();
      assertThat(a.subList(0, common))
          .isEqualTo(b.subList(0, common)); // one stream is a prefix of the other
    }
    assertThat(first.get(0).get(0))
        .isNotEqualTo(first.get(1).get(0)); // threads draw different streams
  }

  /** A request of some microseconds, so that every latency is kept (below the cap per thread). */
  private static long slowly(long value) {
    LockSupport.parkNanos(1_000);
    return value;
  }

  @Test
  void theFirstFailureOfARequestStopsTheRun() {
    assertThatThrownBy(
            () ->
                Workload.run(
                    2,
                    Duration.ofSeconds(30),
                    1,
                    QUIET,
                    new Workload.Variant(
                        "failing",
                        (thread, random) -> {
                          throw new IllegalStateException("boom");
                        })))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");
  }

  @Test
  void percentilesUseTheNearestRank() {
    Latencies latencies = new Latencies(new long[] {5, 1, 4, 2, 3, 6, 7, 8, 9, 10});

    assertThat(latencies.percentile(50)).isEqualTo(Duration.ofNanos(5));
    assertThat(latencies.percentile(99)).isEqualTo(Duration.ofNanos(10));
    assertThat(latencies.mean()).isEqualTo(Duration.ofNanos(6)); // 5.5 rounded
    assertThat(new Latencies(new long[0]).percentile(99)).isEqualTo(Duration.ZERO);
  }
}
