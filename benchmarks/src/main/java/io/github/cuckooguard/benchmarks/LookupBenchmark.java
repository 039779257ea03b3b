package io.github.cuckooguard.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Lookups in a filter holding {@code n} keys: time per {@code mightContain}, for a share of {@code
 * positivePercent} stored keys among the probes, with one and with two threads.
 *
 * <p>The filter is built once per fork from {@link Keys#presentKeys(int)}; the probes are one fixed
 * random sequence of {@value #PROBES} keys ({@link Keys#probes}) that every implementation walks in
 * the same order. Each thread has its own cursor, starting at its own offset, and its own
 * found/not-found counters: they keep the JIT from dropping the lookups and are reported by JMH
 * ({@code ·found}, {@code ·notFound}), so a run also shows the measured share of "might contain"
 * answers (positive share plus false positives).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class LookupBenchmark {

  /** Length of the probe sequence: 8 MiB, walked sequentially, so its reads are prefetched. */
  static final int PROBES = 1 << 20;

  /** The implementation under test. */
  @Param({
    "OURS_8",
    "OURS_12",
    "OURS_16",
    "FF_CUCKOO_8",
    "FF_CUCKOO_16",
    "FF_CUCKOOPLUS_8",
    "FF_CUCKOOPLUS_16",
    "FF_XOR_8",
    "FF_XOR_16",
    "FF_XORFUSE_8",
    "GUAVA_8",
    "GUAVA_12",
    "GUAVA_16",
    "CF4J_8",
    "CF4J_12",
    "CF4J_16"
  })
  public Impl impl;

  /** Keys stored in the filter. */
  @Param({"1000000", "16000000"})
  public int n;

  /** Share of probes that are stored keys, in percent. */
  @Param({"0", "50", "100"})
  public int positivePercent;

  FilterAdapter filter;
  long[] probes;

  /** Builds the filter from the shared keys and the probe sequence; not timed. */
  @Setup(Level.Trial)
  public void setUp() {
    filter = impl.build(Keys.presentKeys(n));
    probes = Keys.probes(n, positivePercent, PROBES, Keys.SEED + positivePercent);
  }

  /** One thread's cursor and counters. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Probe extends ProbeCursor {
    /** Starts this thread at its own offset into the probes. */
    @Setup(Level.Trial)
    public void start(LookupBenchmark benchmark, ThreadParams thread) {
      attach(benchmark.probes, thread);
    }

    /** Lookups answered "might contain" in this iteration. */
    public long found() {
      return hits;
    }

    /** Lookups answered "definitely absent" in this iteration. */
    public long notFound() {
      return misses;
    }
  }

  /** One lookup, one thread. */
  @Benchmark
  @Threads(1)
  public void oneThread(Probe probe) {
    probe.count(filter.mightContain(probe.next()));
  }

  /** One lookup per thread, two threads on the same filter. */
  @Benchmark
  @Threads(2)
  public void twoThreads(Probe probe) {
    probe.count(filter.mightContain(probe.next()));
  }
}
