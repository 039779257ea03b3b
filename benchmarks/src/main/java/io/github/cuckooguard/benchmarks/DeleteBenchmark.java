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
 * Deletes, per key: each invocation removes all {@value InsertBenchmark#N} keys, in insertion
 * order, from a filter that {@link InsertBenchmark} would have filled to its design load. Filling
 * is not timed. Only the filters that can delete take part: ours and CuckooFilter4J (FastFilter
 * 1.0.2's cuckoo filters, Guava and the xor filters cannot).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class DeleteBenchmark {

  /** The implementation under test. */
  @Param({"OURS_8", "OURS_12", "OURS_16", "CF4J_8", "CF4J_12", "CF4J_16"})
  public Impl impl;

  long[] keys;
  FilterAdapter filter;

  /** The keys to insert and delete; not timed. */
  @Setup(Level.Trial)
  public void keys() {
    keys = Keys.presentKeys(InsertBenchmark.N);
  }

  /** A filter holding every key before each drain; not timed. */
  @Setup(Level.Invocation)
  public void fullFilter() {
    filter = impl.empty(InsertBenchmark.N);
    InsertBenchmark.addAll(filter, keys);
  }

  /** Removes every key; returns the filter so the work stays observable. */
  @Benchmark
  @OperationsPerInvocation(InsertBenchmark.N)
  public FilterAdapter delete() {
    for (long key : keys) {
      if (!filter.remove(key)) {
        throw new IllegalStateException("the remove of an added key found no fingerprint");
      }
    }
    return filter;
  }
}
