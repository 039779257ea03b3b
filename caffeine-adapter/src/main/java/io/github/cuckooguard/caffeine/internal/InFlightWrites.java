package io.github.cuckooguard.caffeine.internal;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Tracks the cache operations that may call {@code keyEntered} and lets a rebuild wait until
 * every such operation that started before it has finished.
 *
 * <p>Why: a write calls {@code keyEntered} inside Caffeine's per-key compute, a moment before the
 * new entry is published in the hash table. If a rebuild installs its new filter in that moment
 * and its scan passes the entry's bin before the entry is published, the new filter gets neither
 * the enter (it happened before the rebuild began recording) nor the scanned key: a false
 * negative once the new filter is swapped in. The key source therefore calls
 * {@link #awaitEarlierWrites} before it iterates: every write whose {@code keyEntered} preceded
 * the rebuild has then published its entry (or removed it again, with its {@code keyLeft}).
 *
 * <p>Mechanism: two counters selected by the parity of an epoch. A write increments the counter
 * of the current epoch and re-reads the epoch (retrying if it changed, so it is never counted in
 * a parity the waiter has already drained); a waiter advances the epoch and waits until the
 * previous parity's counter is zero. Writes never wait. Waiters are serialised.
 */
public final class InFlightWrites {

  private final LongAdder[] active = {new LongAdder(), new LongAdder()};
  private volatile int epoch;
  private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);

  /** Marks a write as started; pass the result to {@link #exit}. */
  public int enter() {
    depth.get()[0]++;
    while (true) {
      int e = epoch;
      LongAdder counter = active[e & 1];
      counter.increment();
      if (epoch == e) {
        return e;
      }
      counter.decrement();
    }
  }

  /** Marks the write started with {@code ticket} as finished. */
  public void exit(int ticket) {
    active[ticket & 1].decrement();
    depth.get()[0]--;
  }

  /** Whether the current thread is inside a tracked write. */
  public boolean insideWrite() {
    return depth.get()[0] > 0;
  }

  /**
   * Waits until every write that started before this call has finished.
   *
   * @throws InterruptedException if interrupted while waiting
   * @throws IllegalStateException if the current thread is itself inside a write (it would wait
   *     for itself)
   */
  public synchronized void awaitEarlierWrites() throws InterruptedException {
    if (insideWrite()) {
      throw new IllegalStateException("a rebuild ran on a thread inside a cache write; it cannot wait"
          + " for that write to publish its key. Give the guard an executor that runs rebuilds on"
          + " another thread (the default, ForkJoinPool.commonPool(), does)");
    }
    int e = epoch;
    epoch = e + 1;
    LongAdder earlier = active[e & 1];
    for (int spins = 0; earlier.sum() != 0; spins++) {
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting for cache writes in flight");
      }
      if (spins < 64) {
        Thread.onSpinWait();
      } else if (spins < 128) {
        Thread.yield();
      } else {
        LockSupport.parkNanos(50_000);
      }
    }
  }
}
