package io.github.cuckooguard.benchmarks.integration;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * cuckoo-guard-core's write protocol on its own, as the adapters run it: an enter made visible and
 * its leave gone ({@code beginEnter(k).visible()} then {@code beginLeave(k).gone()}; one op is
 * both), the same with the handles handed to a {@link Blackhole} (so that escape analysis cannot
 * remove them: what an adapter pays when it keeps a handle across a call, as a Caffeine compute
 * does), and the handle-less {@code keyEntered}/{@code keyLeft}. Run with {@code -prof gc}: the
 * in-flight bookkeeping should add nothing to the handles.
 *
 * <p>A guard with a key source (as every adapter's), {@code Long} keys through {@link
 * Funnels#longFunnel()}, {@value #N} keys stored ({@link Fixtures#presentKey}); the written keys
 * are {@value Fixtures#PROBES} never-stored keys, boxed before timing, so the filter's fill stays
 * the same.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class GuardWriteBenchmark {

  static final int N = 100_000;

  CuckooGuard<Long> guard;
  Long[] fresh;
  int cursor;

  /** Fills the guard and boxes the written keys; not timed. */
  @Setup(Level.Trial)
  public void setUp() {
    guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(2L * N)
            .seed(Fixtures.SEED)
            .keySource(action -> {})
            .build();
    for (int i = 0; i < N; i++) {
      guard.keyEntered(Fixtures.presentKey(i));
    }
    fresh = Fixtures.probes(N, false, key -> true);
  }

  private Long next() {
    return fresh[cursor = (cursor + 1) & (Fixtures.PROBES - 1)];
  }

  /** {@code beginEnter(k).visible()}, then {@code beginLeave(k).gone()}. */
  @Benchmark
  public void enterThenLeave() {
    Long key = next();
    guard.beginEnter(key).visible();
    guard.beginLeave(key).gone();
  }

  /** As {@link #enterThenLeave}, the handles escaping into the blackhole. */
  @Benchmark
  public void enterThenLeaveHandlesKept(Blackhole bh) {
    Long key = next();
    PendingEnter<Long> enter = guard.beginEnter(key);
    bh.consume(enter);
    enter.visible();
    PendingLeave<Long> leave = guard.beginLeave(key);
    bh.consume(leave);
    leave.gone();
  }

  /** {@code keyEntered(k)}, then {@code keyLeft(k)}: no handles. */
  @Benchmark
  public void keyEnteredThenLeft() {
    Long key = next();
    guard.keyEntered(key);
    guard.keyLeft(key);
  }
}
