package io.github.cuckooguard.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The floor under {@link ConcurrentMixBenchmark}: what a reader pays for a second thread's stores
 * into the memory it reads, on this machine, with no filter at all. A plain {@code long[]} of the
 * size of {@code impl}'s table for {@code n} keys stands in for the table; the reader loads two
 * words at hashed positions per probe (a lookup's two buckets, nothing validated), the storer
 * stores into two words at hashed positions per operation (an add's and a remove's one store each)
 * and then burns {@code writerPause} tokens, as {@link ConcurrentMixBenchmark#writer} does.
 *
 * <p>Groups: {@code shared}, the storer writes the array the reader reads; {@code apart}, it writes
 * a second array of the same size; {@code alone}, no storer. {@code shared:reader /
 * apart:readerApart − 1} is the cost of lines taken away by stores, at the storer's rate (its own
 * score is ns per operation, two stores), which any table a writer updates in place pays: a filter
 * beside its writer cannot do better than this at the same rate of stored lines.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class SharedLineFloorBenchmark {

  /** Whose table size the array takes. */
  @Param({"OURS_8", "OURS_16"})
  public Impl impl;

  /** The capacity that table is sized for. */
  @Param({"1000000"})
  public int n;

  /** Blackhole tokens the storer burns between its operations. */
  @Param({"0", "256", "512"})
  public int writerPause;

  long[] words;
  private long[] other;
  long[] probes;
  private long[] churn;
  private int step;

  /** Sizes the arrays from a filter made for {@code n} keys; not timed. */
  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    int length = (int) (impl.empty(n).bitsAllocated() / Long.SIZE);
    words = randomWords(length, Keys.SEED);
    other = params.getBenchmark().endsWith(".apart") ? randomWords(length, Keys.SEED + 2) : null;
    int base = (int) (n * 0.8);
    churn = Keys.presentRange(base, n);
    probes = Keys.probes(base, 50, LookupBenchmark.PROBES, Keys.SEED + 1);
  }

  private static long[] randomWords(int length, long seed) {
    long[] w = new long[length];
    for (int i = 0; i < length; i++) {
      w[i] = Keys.mix(seed + i);
    }
    return w;
  }

  /** Two positions in [0, length) from the two halves of one hash. */
  static int first(long hash, int length) {
    return (int) (((hash >>> 32) * length) >>> 32);
  }

  static int second(long hash, int length) {
    return (int) (((hash & 0xFFFF_FFFFL) * length) >>> 32);
  }

  /** A reader thread's cursor and counters. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Probe extends ProbeCursor {
    /** Starts this reader at its own offset into the probes. */
    @Setup(Level.Trial)
    public void start(SharedLineFloorBenchmark benchmark, ThreadParams thread) {
      attach(benchmark.probes, thread);
    }

    /** Probes whose two words' low bits differ (about half: keeps the loads live). */
    public long found() {
      return hits;
    }

    /** The other probes. */
    public long notFound() {
      return misses;
    }
  }

  private boolean read(long key) {
    long[] w = words;
    long h = Keys.mix(key);
    return ((w[first(h, w.length)] ^ w[second(h, w.length)]) & 1) != 0;
  }

  private long store(long[] w) {
    int m = churn.length;
    int s = step;
    long h1 = Keys.mix(churn[s % m]);
    long h2 = Keys.mix(churn[(s + m / 2) % m]);
    w[first(h1, w.length)]++;
    w[second(h2, w.length)]++;
    step = s + 1 == Integer.MAX_VALUE ? 0 : s + 1;
    Blackhole.consumeCPU(writerPause);
    return s;
  }

  /** Two loads while the storer writes this array. */
  @Benchmark
  @Group("shared")
  @GroupThreads(1)
  public void reader(Probe probe) {
    probe.count(read(probe.next()));
  }

  /** Two stores into the array the reader reads, then the pause. */
  @Benchmark
  @Group("shared")
  @GroupThreads(1)
  public long storer() {
    return store(words);
  }

  /** Two loads while the storer writes another array. */
  @Benchmark
  @Group("apart")
  @GroupThreads(1)
  public void readerApart(Probe probe) {
    probe.count(read(probe.next()));
  }

  /** {@link #storer} on the second array. */
  @Benchmark
  @Group("apart")
  @GroupThreads(1)
  public long storerApart() {
    return store(other);
  }

  /** Two loads, no storer. */
  @Benchmark
  @Group("alone")
  @GroupThreads(1)
  public void readerAlone(Probe probe) {
    probe.count(read(probe.next()));
  }
}
