package io.github.cuckooguard.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Lookups the way users run them: each invocation answers {@value #BATCH} independent lookups, so
 * JMH's per-invocation overhead is spread over the batch instead of compressing the ratios, and the
 * CPU can overlap the cache misses of independent keys, as it does in a user's loop. Time is
 * reported per lookup ({@code @OperationsPerInvocation}).
 *
 * <p>{@code positivePercent} = 100 (every probe a stored key) and 0 (none) are the headline rows: a
 * filter's answers in a real workload are mostly one or the other, and a pure sequence has no
 * answer-dependent branch mispredictions. 50 (a shuffled 50/50 mix) is an extra row only.
 *
 * <ul>
 *   <li>{@code loop}: a loop of single {@code mightContain} calls through the adapter, for every
 *       implementation (the answer count is returned, so no lookup is dead code);
 *   <li>{@code batch}: {@link FilterAdapter#mightContainAll}: ours calls {@code
 *       LongCuckooFilter.mightContainAll(long[], int, int, boolean[])}, the others loop.
 * </ul>
 *
 * The probes are one fixed random sequence of {@value LookupBenchmark#PROBES} keys per share
 * ({@link Keys#probes}), walked slice by slice; every implementation sees the same slices. Warm-up
 * is the same for all implementations (3 × 1 s by default: Guava's and CuckooFilter4J's boxing
 * paths reach their compiled speed within the first of them).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class LookupBatchBenchmark {

  /** Lookups per invocation. */
  static final int BATCH = 1024;

  /** The implementation under test. */
  @Param({"OURS_8", "OURS_12", "OURS_16", "FF_CUCKOO_8", "FF_CUCKOO_16", "GUAVA_12", "CF4J_12"})
  public Impl impl;

  /** Keys stored in the filter. */
  @Param({"1000000", "16000000"})
  public int n;

  /** Share of probes that are stored keys, in percent: 100 and 0 are the headline rows. */
  @Param({"100", "0", "50"})
  public int positivePercent;

  FilterAdapter filter;
  long[] probes;
  boolean[] answers;
  int offset;

  /** Builds the filter from the shared keys and the probe sequence; not timed. */
  @Setup(Level.Trial)
  public void setUp() {
    filter = impl.build(Keys.presentKeys(n));
    probes = Keys.probes(n, positivePercent, LookupBenchmark.PROBES, Keys.SEED + positivePercent);
    answers = new boolean[BATCH];
  }

  private int nextSlice() {
    int from = offset;
    offset = (from + BATCH) & (probes.length - 1);
    return from;
  }

  /** {@value #BATCH} single lookups; returns how many answered "might contain". */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int loop() {
    long[] keys = probes;
    int from = nextSlice();
    int found = 0;
    for (int i = from; i < from + BATCH; i++) {
      found += filter.mightContain(keys[i]) ? 1 : 0;
    }
    return found;
  }

  /** One batch call of {@value #BATCH} lookups; returns the answers (consumed by JMH). */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public boolean[] batch() {
    filter.mightContainAll(probes, nextSlice(), BATCH, answers);
    return answers;
  }
}
