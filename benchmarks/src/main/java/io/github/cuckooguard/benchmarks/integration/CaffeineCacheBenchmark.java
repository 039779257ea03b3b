package io.github.cuckooguard.benchmarks.integration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * A Caffeine cache through the cuckoo-guard-caffeine's guard ({@code guarded=true}) and the same
 * cache without it ({@code guarded=false}), in the same run: {@code getIfPresent} of a present and
 * of an absent key (Caffeine answers both; the guard is not asked), {@code put} over a present key
 * (replace), {@code put} of a new key followed by its {@code invalidate} (so the cache keeps its
 * size; one op is both), and {@code get(k, fn)} of a present key. Run with {@code -prof gc}.
 *
 * <p>{@code Long} keys through {@link Funnels#longFunnel()}, {@code entries} of them ({@link
 * Fixtures#presentKey}: the even numbers), {@code maximumSize} twice that so nothing is evicted;
 * probes are {@value Fixtures#PROBES} keys in a fixed random order ({@link Fixtures#probes}), boxed
 * before timing. Each benchmark thread walks them with its own {@link Cursor} from its own offset,
 * so that a run with several threads ({@code -t 2}) shares no written field between threads except
 * the caches' own. {@link GuardRatios} prints guarded / unguarded for each operation; {@link
 * CaffeineRatios} times both settings interleaved in one JVM.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CaffeineCacheBenchmark {

  private static final Function<Long, String> LOAD = key -> "loaded";
  private static final String VALUE = "value";

  /** Whether the cache is wrapped by a guard. */
  @Param({"true", "false"})
  public boolean guarded;

  /** Entries in the cache. */
  @Param({"100000"})
  public int entries;

  Cache<Long, String> cache;
  Long[] present;
  Long[] absent;

  /**
   * One thread's position in the probe sequences; threads start {@value #CURSOR_SPACING} probes
   * apart, in the order they first use a cursor.
   */
  @State(Scope.Thread)
  public static class Cursor {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private int at;

    /** A benchmark thread's cursor. */
    public Cursor() {
      this(THREADS.getAndIncrement() * CURSOR_SPACING);
    }

    /** A cursor at probe {@code start}. */
    Cursor(int start) {
      at = start & (Fixtures.PROBES - 1);
    }

    int next() {
      return at = (at + 1) & (Fixtures.PROBES - 1);
    }
  }

  /** How far apart the threads' cursors start. */
  static final int CURSOR_SPACING = 1_031;

  /** Fills the cache and checks that the probes are what they claim; not timed. */
  @Setup(Level.Trial)
  public void setUp() {
    Caffeine<Object, Object> builder = Caffeine.newBuilder().maximumSize(2L * entries);
    cache =
        guarded
            ? CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
                .expectedInsertions(2L * entries)
                .seed(Fixtures.SEED)
                .build()
                .wrap(builder)
            : builder.build();
    for (int i = 0; i < entries; i++) {
      cache.put(Fixtures.presentKey(i), VALUE);
    }
    present = Fixtures.probes(entries, true, key -> true);
    absent = Fixtures.probes(entries, false, key -> true);
    for (int i = 0; i < Fixtures.PROBES; i++) {
      if (cache.getIfPresent(present[i]) == null || cache.getIfPresent(absent[i]) != null) {
        throw new IllegalStateException(
            "the cache does not hold exactly the keys written: " + present[i] + " or " + absent[i]);
      }
    }
  }

  /** {@code getIfPresent} of a key in the cache. */
  @Benchmark
  public String getIfPresentPresent(Cursor c) {
    return cache.getIfPresent(present[c.next()]);
  }

  /** {@code getIfPresent} of a key never written. */
  @Benchmark
  public String getIfPresentAbsent(Cursor c) {
    return cache.getIfPresent(absent[c.next()]);
  }

  /** {@code put} over a key in the cache (a replace: the filter does not change). */
  @Benchmark
  public void putReplace(Cursor c) {
    cache.put(present[c.next()], VALUE);
  }

  /**
   * {@code put} of a key never written, then {@code invalidate} of it: one op is both. With several
   * threads, two may hit the same key at once (their cursors start apart, so rarely).
   */
  @Benchmark
  public void putNewThenInvalidate(Cursor c) {
    Long key = absent[c.next()];
    cache.put(key, VALUE);
    cache.invalidate(key);
  }

  /** {@code get(k, fn)} of a key in the cache: a hit, the function is not called. */
  @Benchmark
  public String getWithFunctionPresent(Cursor c) {
    return cache.get(present[c.next()], LOAD);
  }
}
