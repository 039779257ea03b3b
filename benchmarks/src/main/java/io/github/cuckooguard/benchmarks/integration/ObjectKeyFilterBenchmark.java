package io.github.cuckooguard.benchmarks.integration;

import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySink;
import io.github.cuckooguard.LongCuckooFilter;
import io.github.cuckooguard.benchmarks.Keys;
import java.util.concurrent.TimeUnit;
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
 * The object-key path that every adapter uses (funnel, hash, table), beside the primitive {@link
 * LongCuckooFilter} in the same run: {@code CuckooFilter<T>.mightContain}, an add followed by the
 * remove of the same key, and {@code CuckooGuard<T>.mightContain}. Run with {@code -prof gc}: the
 * figure that matters is {@code gc.alloc.rate.norm} (B/op), which should be 0 for the ready
 * funnels.
 *
 * <p>{@code keys} chooses the key type and funnel: {@code long} ({@code Long} keys through {@link
 * Funnels#longFunnel()}), {@code string} ({@code "key-<n>"} through {@link
 * Funnels#stringFunnel()}), {@code custom} ({@code Long} keys through a user-written funnel that
 * puts the long into the sink, i.e. the general sink path). Filters and guard hold {@value #N} keys
 * ({@link Keys#presentKey}); probes are a fixed sequence of {@value #PROBES} keys, half of them
 * stored, boxed before timing so that a lookup times no boxing. The add/remove keys are never
 * stored ones, so the filter's fill stays the same throughout.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ObjectKeyFilterBenchmark {

  static final int N = 500_000;
  static final int PROBES = 1 << 16;

  /** Key type and funnel: {@code long}, {@code string} or {@code custom}. */
  @Param({"long", "string", "custom"})
  public String keys;

  CuckooFilter<Object> filter;
  CuckooGuard<Object> guard;
  LongCuckooFilter primitive;
  Object[] probes;
  Object[] fresh;
  long[] primitiveProbes;
  int cursor;

  /** A funnel a user might write for {@code Long} keys: one long into the sink. */
  static final class CustomLongFunnel implements Funnel<Object> {
    @Override
    public void funnel(Object key, KeySink sink) {
      sink.putLong((Long) key);
    }

    @Override
    public String id() {
      return "benchmark-custom-long";
    }
  }

  @SuppressWarnings("unchecked")
  private Funnel<Object> funnel() {
    return switch (keys) {
      case "long" -> (Funnel<Object>) (Funnel<?>) Funnels.longFunnel();
      case "string" -> (Funnel<Object>) (Funnel<?>) Funnels.stringFunnel();
      case "custom" -> new CustomLongFunnel();
      default ->
          throw new IllegalArgumentException("keys (" + keys + ") must be long, string or custom");
    };
  }

  private Object key(long value) {
    return keys.equals("string") ? "key-" + value : (Object) value;
  }

  /** Fills the filters and the guard and boxes the probes; not timed. */
  @Setup(Level.Trial)
  public void setUp() {
    Funnel<Object> funnel = funnel();
    filter = CuckooFilter.newBuilder(funnel).expectedInsertions(N).seed(Keys.SEED).build();
    guard = CuckooGuard.newBuilder(funnel).expectedInsertions(N).seed(Keys.SEED).build();
    primitive = LongCuckooFilter.newBuilder().expectedInsertions(N).seed(Keys.SEED).build();
    for (int i = 0; i < N; i++) {
      long k = Keys.presentKey(i);
      Object key = key(k);
      filter.add(key);
      guard.keyEntered(key);
      primitive.add(k);
    }
    primitiveProbes = Keys.probes(N, 50, PROBES, Keys.SEED + 50);
    probes = new Object[PROBES];
    fresh = new Object[PROBES];
    for (int i = 0; i < PROBES; i++) {
      probes[i] = key(primitiveProbes[i]);
      fresh[i] = key(Keys.absentKey(i));
    }
    for (int i = 0; i < PROBES; i++) { // the promise these lookups rest on
      if (!filter.mightContain(key(Keys.presentKey(i)))
          || !guard.mightContain(key(Keys.presentKey(i)))) {
        throw new IllegalStateException("false negative for stored key " + i);
      }
    }
  }

  private int next() {
    return cursor = (cursor + 1) & (PROBES - 1);
  }

  /** {@code CuckooFilter<T>.mightContain}, half of the probes stored. */
  @Benchmark
  public boolean filterMightContain() {
    return filter.mightContain(probes[next()]);
  }

  /** {@code CuckooFilter<T>.add} of a key never stored, then its {@code remove}: one op is both. */
  @Benchmark
  public boolean filterAddRemove() {
    Object key = fresh[next()];
    return filter.add(key) & filter.remove(key);
  }

  /**
   * {@code CuckooGuard<T>.mightContain} (with its statistics counters), half of the probes stored.
   */
  @Benchmark
  public boolean guardMightContain() {
    return guard.mightContain(probes[next()]);
  }

  /**
   * The primitive filter on the same long probes: the floor the object path is measured against.
   */
  @Benchmark
  public boolean primitiveMightContain() {
    return primitive.mightContain(primitiveProbes[next()]);
  }
}
