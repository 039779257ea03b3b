package io.github.cuckooguard.benchmarks;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
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
 * What the semi-sorted bucket layout ({@code semiSorted()}) costs on lookups, beside the plain
 * layout of the same fingerprints, FastFilter's cuckoo filters and Guava at 0.1 %, measured as
 * {@link LookupBatchBenchmark} measures: {@value LookupBatchBenchmark#BATCH} independent lookups
 * per invocation, pure-positive and pure-negative probe sequences, time per lookup. {@code loop} is
 * a loop of single {@code mightContain} calls, {@code batch} the library's {@code mightContainAll}
 * (the others loop). The setup prints each filter's bits per item.
 *
 * <ul>
 *   <li>{@code PLAIN_13}, {@code SEMI_13}: {@code LongCuckooFilter} sized with {@code
 *       expectedInsertions(n).fpp(0.001)} (13-bit fingerprints), plain and semi-sorted (12 bits per
 *       slot);
 *   <li>{@code PLAIN_16}, {@code SEMI_16}: 16-bit fingerprints, plain and semi-sorted (15 bits per
 *       slot);
 *   <li>{@code FF_CUCKOO_8}, {@code FF_CUCKOO_16}: FastFilter 1.0.2, as in {@link Impl};
 *   <li>{@code GUAVA_0_1}: Guava's {@code BloomFilter} created with fpp 0.001.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class SemiSortedLookupBenchmark {

  /** The filters compared. */
  public enum Variant {
    PLAIN_13,
    SEMI_13,
    PLAIN_16,
    SEMI_16,
    FF_CUCKOO_8,
    FF_CUCKOO_16,
    GUAVA_0_1
  }

  /** The filter under test. */
  @Param({"PLAIN_13", "SEMI_13", "PLAIN_16", "SEMI_16", "FF_CUCKOO_8", "FF_CUCKOO_16", "GUAVA_0_1"})
  public Variant variant;

  /** Keys stored in the filter. */
  @Param({"1000000"})
  public int n;

  /** Share of probes that are stored keys, in percent. */
  @Param({"100", "0"})
  public int positivePercent;

  FilterAdapter filter;
  long[] probes;
  boolean[] answers;
  int offset;

  /** Builds the filter from the shared keys and the probe sequence; not timed. */
  @Setup(Level.Trial)
  public void setUp() {
    long[] keys = Keys.presentKeys(n);
    filter =
        switch (variant) {
          case PLAIN_13 -> ours(keys, 13, false);
          case SEMI_13 -> ours(keys, 13, true);
          case PLAIN_16 -> ours(keys, 16, false);
          case SEMI_16 -> ours(keys, 16, true);
          case FF_CUCKOO_8 -> Impl.FF_CUCKOO_8.build(keys);
          case FF_CUCKOO_16 -> Impl.FF_CUCKOO_16.build(keys);
          case GUAVA_0_1 -> {
            FilterAdapter g =
                new Adapters.Guava(BloomFilter.create(Funnels.longFunnel(), keys.length, 0.001));
            for (long k : keys) {
              g.add(k);
            }
            yield g;
          }
        };
    System.out.printf(
        "%n%s n=%d: %.3f bits/item%n", variant, n, (double) filter.bitsAllocated() / n);
    probes = Keys.probes(n, positivePercent, LookupBenchmark.PROBES, Keys.SEED + positivePercent);
    answers = new boolean[LookupBatchBenchmark.BATCH];
  }

  private static FilterAdapter ours(long[] keys, int bits, boolean semiSorted) {
    LongCuckooFilter.Builder b =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(keys.length)
            .fingerprintBits(bits)
            .seed(Keys.SEED);
    LongCuckooFilter f = (semiSorted ? b.semiSorted() : b).build();
    for (long k : keys) {
      if (!f.add(k)) {
        throw new IllegalStateException("add refused at " + f.info());
      }
    }
    if (f.info().subFilters() != 1) {
      throw new IllegalStateException("the filter grew: " + f.info());
    }
    return new Adapters.Ours(f);
  }

  private int nextSlice() {
    int from = offset;
    offset = (from + LookupBatchBenchmark.BATCH) & (probes.length - 1);
    return from;
  }

  /** {@value LookupBatchBenchmark#BATCH} single lookups; returns how many answered true. */
  @Benchmark
  @OperationsPerInvocation(LookupBatchBenchmark.BATCH)
  public int loop() {
    long[] keys = probes;
    int from = nextSlice();
    int found = 0;
    for (int i = from; i < from + LookupBatchBenchmark.BATCH; i++) {
      found += filter.mightContain(keys[i]) ? 1 : 0;
    }
    return found;
  }

  /** One batch call of {@value LookupBatchBenchmark#BATCH} lookups. */
  @Benchmark
  @OperationsPerInvocation(LookupBatchBenchmark.BATCH)
  public boolean[] batch() {
    filter.mightContainAll(probes, nextSlice(), LookupBatchBenchmark.BATCH, answers);
    return answers;
  }
}
