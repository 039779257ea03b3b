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
 * Ours only: {@link LongCuckooFilter#addAll(long[], int, int)} (adds until the first refused key,
 * the writer lock once per 1,024 keys) filling a new filter as {@link InsertBenchmark} does, beside
 * the same fill by single adds. Making the empty filter is not timed, but its allocation is counted
 * by {@code -prof gc} (about {@code f / 8 / 0.95} bytes per key).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class BatchAddBenchmark {

  /** Fingerprint bits of ours. */
  @Param({"8", "16"})
  public int bits;

  long[] keys;
  LongCuckooFilter filter;

  /** The keys to insert; not timed. */
  @Setup(Level.Trial)
  public void keys() {
    keys = Keys.presentKeys(InsertBenchmark.N);
  }

  /** A new empty filter before each fill; not timed. */
  @Setup(Level.Invocation)
  public void emptyFilter() {
    filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(InsertBenchmark.N)
            .fingerprintBits(bits)
            .seed(Keys.SEED)
            .build();
  }

  /** One call for all keys; throws unless every key was added. */
  @Benchmark
  @OperationsPerInvocation(InsertBenchmark.N)
  public LongCuckooFilter addAllCounted() {
    if (filter.addAll(keys, 0, keys.length) != keys.length) {
      throw new IllegalStateException("a filter sized for " + keys.length + " keys refused one");
    }
    return filter;
  }

  /** The same fill by single adds. */
  @Benchmark
  @OperationsPerInvocation(InsertBenchmark.N)
  public LongCuckooFilter singleAdds() {
    for (long k : keys) {
      if (!filter.add(k)) {
        throw new IllegalStateException("a filter sized for " + keys.length + " keys refused one");
      }
    }
    return filter;
  }
}
