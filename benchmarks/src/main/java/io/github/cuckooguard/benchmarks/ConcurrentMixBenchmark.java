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
 * Readers while a writer inserts and deletes. Group {@code mixed}: one reader thread and one writer
 * thread on the same filter; group {@code alone} ({@link #readerAlone}): the same reader, same
 * filter and fill, without the writer. The writer's cost to readers is {@code mixed:reader / alone
 * − 1}.
 *
 * <p>The filter, sized for {@code n}, permanently holds {@code presentKey(0 … 0.8n − 1)} (the base)
 * plus a sliding window of {@code 0.1n} churn keys from {@code presentKey(0.8n … n − 1)}: each
 * writer operation adds the next churn key and removes the one added {@code 0.1n} operations
 * earlier, so the load stays at 0.9 of capacity (85.5 % of the slots), kick paths happen, and every
 * remove is of a key whose add happened. Readers probe at a 50 % positive share, their positives
 * drawn from the base, so their {@code found} counter must stay at or above half the lookups.
 *
 * <p>Group {@code control}: the same reader beside a thread that only burns CPU ({@link #burner}).
 * Group {@code apart}: the same reader beside the same writer, at the same pause, adding to and
 * removing from a second filter of the same size and fill ({@link #writerApart}): everything the
 * writer costs a reader except the lines they share, so {@code mixed:reader / apart:readerApart −
 * 1} is the cost of sharing the filter itself.
 *
 * <p>{@code writerPause} sets the write rate: after each operation the writer burns that many
 * {@link Blackhole#consumeCPU} tokens outside the filter. 0 is a writer that does nothing else (the
 * worst case: millions of writes a second); the others are a busy but real cache's churn. The
 * writer's own score (ns per add + remove, pause included) gives the rate that was reached.
 * Whatever the filter does, its readers pay for sharing cache lines with the writer: every write
 * takes a line away from the reader's cache, and the reader's next read of it misses.
 *
 * <p>Only thread-safe filters that delete take part: ours and CuckooFilter4J.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ConcurrentMixBenchmark {

  /** The implementation under test: thread-safe and deleting. */
  @Param({"OURS_8", "OURS_12", "OURS_16", "CF4J_12"})
  public Impl impl;

  /** The capacity the filter is sized for. */
  @Param({"1000000"})
  public int n;

  /** Blackhole tokens the writer burns between its operations (0: back to back). */
  @Param({"0", "128", "256", "512", "4096"})
  public int writerPause;

  FilterAdapter filter;

  /** The second filter group {@code apart}'s writer works on; null in the other groups. */
  private FilterAdapter other;

  long[] probes;
  private long[] churn;
  private int window;
  private int writerStep;

  /** Fills the base and the first churn window; not timed. */
  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    if (!impl.threadSafe() || !impl.canRemove()) {
      throw new IllegalArgumentException(impl + " is not a thread-safe filter that deletes");
    }
    int base = (int) (n * 0.8);
    churn = Keys.presentRange(base, n);
    window = churn.length / 2;
    filter = filled(base);
    other = params.getBenchmark().endsWith(".apart") ? filled(base) : null;
    writerStep = window;
    probes = Keys.probes(base, 50, LookupBenchmark.PROBES, Keys.SEED + 1);
  }

  /** A new filter holding the base and the first churn window. */
  private FilterAdapter filled(int base) {
    FilterAdapter f = impl.empty(n);
    InsertBenchmark.addAll(f, Keys.presentKeys(base));
    for (int i = 0; i < window; i++) {
      if (!f.add(churn[i])) {
        throw new IllegalStateException(impl + " refused a churn key at 85 % load");
      }
    }
    return f;
  }

  /** A reader thread's cursor and counters. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Probe extends ProbeCursor {
    /** Starts this reader at its own offset into the probes. */
    @Setup(Level.Trial)
    public void start(ConcurrentMixBenchmark benchmark, ThreadParams thread) {
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

  /** One lookup while the writer runs. */
  @Benchmark
  @Group("mixed")
  @GroupThreads(1)
  public void reader(Probe probe) {
    probe.count(filter.mightContain(probe.next()));
  }

  /** One add of the next churn key and one remove of the key added {@code window} steps ago. */
  @Benchmark
  @Group("mixed")
  @GroupThreads(1)
  public boolean writer() {
    return write(filter);
  }

  /** {@link #writer}'s step on {@code f}. */
  private boolean write(FilterAdapter f) {
    int m = churn.length;
    int step = writerStep;
    boolean added = f.add(churn[step % m]);
    boolean removed = f.remove(churn[(step - window) % m]);
    writerStep = step + 1 == Integer.MAX_VALUE ? window : step + 1;
    if (!added || !removed) {
      throw new IllegalStateException(
          impl + ": add " + added + ", remove " + removed + " at step " + step);
    }
    Blackhole.consumeCPU(writerPause);
    return added;
  }

  /** One lookup while the CPU-burning control thread ({@link #burner}) runs. */
  @Benchmark
  @Group("control")
  @GroupThreads(1)
  public void readerBesideBurner(Probe probe) {
    probe.count(filter.mightContain(probe.next()));
  }

  /**
   * The control for {@link #writer}: a second thread that keeps its core busy but touches nothing
   * the reader reads, so {@code mixed:reader / control:readerBesideBurner − 1} is what sharing
   * lines with the writer costs the reader, without what any second busy thread costs it (a shared
   * core's turbo budget, caches, memory bandwidth).
   */
  @Benchmark
  @Group("control")
  @GroupThreads(1)
  public void burner() {
    Blackhole.consumeCPU(256);
  }

  /** One lookup while the same writer works on another filter ({@link #writerApart}). */
  @Benchmark
  @Group("apart")
  @GroupThreads(1)
  public void readerApart(Probe probe) {
    probe.count(filter.mightContain(probe.next()));
  }

  /**
   * The control that shares no line: {@link #writer}'s adds and removes, at the same pause, on a
   * second filter of the same size and fill, so the reader pays for a second thread's memory
   * traffic, cache use and core, but for no line of its own filter being written.
   */
  @Benchmark
  @Group("apart")
  @GroupThreads(1)
  public boolean writerApart() {
    return write(other);
  }

  /** One lookup, no writer: the baseline of {@link #reader}. */
  @Benchmark
  @Group("alone")
  @GroupThreads(1)
  public void readerAlone(Probe probe) {
    probe.count(filter.mightContain(probe.next()));
  }
}
