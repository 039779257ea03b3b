package io.github.cuckooguard.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * One thread's cursor into a shared probe sequence, and its answer counters. Benchmarks extend it
 * as a {@code @State(Scope.Thread) @AuxCounters(EVENTS)} class that declares two public methods,
 * {@code found()} returning {@link #hits} and {@code notFound()} returning {@link #misses} (JMH
 * reads the counters of the annotated class itself, not of its superclass), so JMH reports them
 * next to the time ({@code ·found}, {@code ·notFound}): they keep the JIT from dropping a lookup
 * whose answer is unused, and they show the share of "might contain" answers.
 */
public abstract class ProbeCursor {
  /** Lookups answered "might contain" in this iteration. */
  protected long hits;

  /** Lookups answered "definitely absent" in this iteration. */
  protected long misses;

  private long[] keys;
  private int mask;
  private int cursor;

  /** Walks {@code keys} (a power-of-two length) from this thread's own offset. */
  protected void attach(long[] keys, ThreadParams thread) {
    if (Integer.bitCount(keys.length) != 1) {
      throw new IllegalArgumentException(
          "probe count (" + keys.length + ") must be a power of two");
    }
    this.keys = keys;
    this.mask = keys.length - 1;
    this.cursor = (int) ((long) keys.length * thread.getThreadIndex() / thread.getThreadCount());
  }

  /** Counts each iteration from zero. */
  @Setup(Level.Iteration)
  public void resetCounters() {
    hits = 0;
    misses = 0;
  }

  final long next() {
    long key = keys[cursor];
    cursor = (cursor + 1) & mask;
    return key;
  }

  /** Branch-free, so counting adds no misprediction at a 50 % positive share. */
  final void count(boolean answer) {
    long hit = answer ? 1 : 0;
    hits += hit;
    misses += 1 - hit;
  }
}
