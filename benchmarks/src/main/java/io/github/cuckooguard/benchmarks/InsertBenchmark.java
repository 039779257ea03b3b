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
 * Inserts, per key: each invocation adds {@value #N} keys to a new, empty filter sized for them,
 * which takes a cuckoo filter from empty to its design load (95 %), so the figure includes the kick
 * paths of the last, crowded inserts. Single-shot time divided by {@value #N}; making the empty
 * filter is not timed. {@link DeleteBenchmark} measures the way back.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class InsertBenchmark {

  /**
   * Keys per fill: the capacity every filter is sized for. Not 10^6: CuckooFilter4J rounds its
   * table to 2^18 buckets, and 10^6 keys would fill it to 95.4 %, where some of its builds refuse a
   * key; 996 000 keys are 95.0 % of its table, as of ours and FastFilter's.
   */
  static final int N = 996_000;

  /** The implementation under test. */
  @Param({
    "OURS_8",
    "OURS_12",
    "OURS_16",
    "FF_CUCKOO_8",
    "FF_CUCKOO_16",
    "FF_CUCKOOPLUS_8",
    "FF_CUCKOOPLUS_16",
    "GUAVA_8",
    "GUAVA_12",
    "GUAVA_16",
    "CF4J_8",
    "CF4J_12",
    "CF4J_16"
  })
  public Impl impl;

  long[] keys;
  FilterAdapter filter;

  /** The keys to insert; not timed. */
  @Setup(Level.Trial)
  public void keys() {
    keys = Keys.presentKeys(N);
  }

  /** A new empty filter before each fill; not timed. */
  @Setup(Level.Invocation)
  public void emptyFilter() {
    filter = impl.empty(N);
  }

  /** Adds every key; throws if the filter refuses one below its design load. */
  static void addAll(FilterAdapter filter, long[] keys) {
    for (long key : keys) {
      if (!filter.add(key)) {
        throw new IllegalStateException("a filter sized for " + keys.length + " keys refused one");
      }
    }
  }

  /**
   * Fills the filter to its capacity with batch adds of {@value LookupBatchBenchmark#BATCH} keys
   * ({@link FilterAdapter#addAll}: ours takes the writer lock once per batch, the others loop).
   */
  @Benchmark
  @OperationsPerInvocation(N)
  public FilterAdapter fillBatch() {
    boolean[] out = new boolean[LookupBatchBenchmark.BATCH];
    for (int from = 0; from < keys.length; from += out.length) {
      int length = Math.min(out.length, keys.length - from);
      filter.addAll(keys, from, length, out);
      for (int i = 0; i < length; i++) {
        if (!out[i]) {
          throw new IllegalStateException("a filter sized for " + N + " keys refused one");
        }
      }
    }
    return filter;
  }

  /** Fills the filter to its capacity; returns it so the work stays observable. */
  @Benchmark
  @OperationsPerInvocation(N)
  public FilterAdapter fill() {
    addAll(filter, keys);
    return filter;
  }
}
