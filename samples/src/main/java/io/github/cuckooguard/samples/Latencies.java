package io.github.cuckooguard.samples;

import java.time.Duration;
import java.util.Arrays;

/**
 * Latencies of the requests of one phase, in nanoseconds, with percentiles. Built by {@link
 * Workload} from the samples of every thread; immutable.
 */
public final class Latencies {

  private final long[] sorted;

  Latencies(long[] samples) {
    this.sorted = samples.clone();
    Arrays.sort(sorted);
  }

  /** The number of samples. */
  public int count() {
    return sorted.length;
  }

  /**
   * The latency that {@code percent} % of the samples do not exceed (nearest rank), or zero without
   * samples.
   */
  public Duration percentile(double percent) {
    if (sorted.length == 0) {
      return Duration.ZERO;
    }
    int rank = (int) Math.ceil(percent / 100 * sorted.length);
    return Duration.ofNanos(sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]);
  }

  /** The mean latency, or zero without samples. */
  public Duration mean() {
    if (sorted.length == 0) {
      return Duration.ZERO;
    }
    double sum = 0;
    for (long sample : sorted) {
      sum += sample;
    }
    return Duration.ofNanos(Math.round(sum / sorted.length));
  }

  /** Milliseconds with enough digits for loopback latencies, e.g. {@code 0.183 ms}. */
  public static String millis(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.3f ms", d.toNanos() / 1e6);
  }
}
