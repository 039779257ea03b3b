package io.github.cuckooguard.benchmarks;

import io.github.cuckooguard.LongCuckooFilter;
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
 * What growth costs a lookup: {@code n} keys at {@code fpp(0.001)} in a filter sized for them (one
 * table, {@code SIZED}) against the same keys in a filter sized for {@code n / 30} that grew to
 * hold them, with expansion 2 (the default: 5 sub-filters of widening fingerprints) or 1 (about 30
 * sub-filters of the first one's size). {@value LookupBatchBenchmark#BATCH} independent lookups per
 * invocation, pure positive or pure negative (as {@link LookupBatchBenchmark}); a lookup of an
 * absent key probes every sub-filter, a present one stops at the newest that holds it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class GrowthLookupBenchmark {

  /** How the filter came to hold the keys. */
  public enum Shape {
    /** Sized for all keys: one table. */
    SIZED,
    /** Sized for n / 30, grown with expansion 2. */
    GROWN_E2,
    /** Sized for n / 30, grown with expansion 1. */
    GROWN_E1
  }

  @Param({"SIZED", "GROWN_E2", "GROWN_E1"})
  public Shape shape;

  @Param({"1000000"})
  public int n;

  @Param({"100", "0"})
  public int positivePercent;

  LongCuckooFilter filter;
  long[] probes;
  int offset;

  @Setup(Level.Trial)
  public void setUp() {
    LongCuckooFilter.Builder b = LongCuckooFilter.newBuilder().fpp(0.001).seed(Keys.SEED);
    filter =
        switch (shape) {
          case SIZED -> b.expectedInsertions(n).build();
          case GROWN_E2 -> b.expectedInsertions(n / 30).expansion(2).build();
          case GROWN_E1 -> b.expectedInsertions(n / 30).expansion(1).build();
        };
    for (long k : Keys.presentKeys(n)) {
      if (!filter.add(k)) {
        throw new IllegalStateException("add failed: " + filter.info());
      }
    }
    probes = Keys.probes(n, positivePercent, LookupBenchmark.PROBES, Keys.SEED + positivePercent);
    System.out.println(shape + ": " + filter.info());
  }

  /** {@value LookupBatchBenchmark#BATCH} single lookups; returns how many answered true. */
  @Benchmark
  @OperationsPerInvocation(LookupBatchBenchmark.BATCH)
  public int loop() {
    long[] keys = probes;
    int from = offset;
    offset = (from + LookupBatchBenchmark.BATCH) & (keys.length - 1);
    int found = 0;
    for (int i = from; i < from + LookupBatchBenchmark.BATCH; i++) {
      found += filter.mightContain(keys[i]) ? 1 : 0;
    }
    return found;
  }
}
