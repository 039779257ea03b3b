package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The writer lock of {@link FilterCore} (a compare-and-set to take it, a release store to give it
 * back, waiters that spin and then wait in line): writers on one small filter exclude each other.
 * WriterLockLivenessTest has the waits (an interrupted waiter, a holder that throws, fairness).
 *
 * <p>Why the test fails without exclusion: a 16-bit add reads a bucket's word and stores it back
 * with its fingerprint set in a free lane (Table.tryPlaceFirst), and a remove does the same to
 * clear one; two writers inside at once on one word lose one of the two changes, so a key that was
 * added and never removed goes missing (a false negative), or the item count drifts from the keys
 * held. The filter is small (4,096 slots) so that four writers meet on the same words all the time.
 * Seeded key choices; the interleaving varies, and the checks must hold for every one.
 */
class WriterLockTest {

  private static final int WRITERS = 4;
  private static final int LIVE_PER_WRITER = 700;
  private static final int OPS_PER_WRITER = 400_000;

  private static long hash(long x) {
    x = (x ^ (x >>> 33)) * 0xFF51AFD7ED558CCDL;
    x = (x ^ (x >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return x ^ (x >>> 33);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void writersExcludeEachOtherNoAddIsLost() throws Exception {
    FilterCore core = new FilterCore(16, 4, 1024, 500, 0, 7);
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<long[]>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        long base = (w + 1L) << 48;
        long seed = 20261204L + w;
        writers.add(
            pool.submit(
                () -> {
                  // a ring of live keys: add the next, remove the oldest once LIVE_PER_WRITER live
                  long[] live = new long[LIVE_PER_WRITER];
                  int head = 0;
                  int size = 0;
                  SplittableRandom random = new SplittableRandom(seed);
                  for (int op = 0; op < OPS_PER_WRITER; op++) {
                    if (size == LIVE_PER_WRITER) {
                      assertThat(core.remove(hash(live[head]))).as("remove of a live key").isTrue();
                      head = (head + 1) % LIVE_PER_WRITER;
                      size--;
                    }
                    long key = base + random.nextLong(1L << 40);
                    if (core.add(hash(key))) {
                      live[(head + size) % LIVE_PER_WRITER] = key;
                      size++;
                    }
                  }
                  long[] held = new long[size];
                  for (int i = 0; i < size; i++) {
                    held[i] = live[(head + i) % LIVE_PER_WRITER];
                  }
                  return held;
                }));
      }
      long total = 0;
      List<Long> missing = new ArrayList<>();
      for (Future<long[]> writer : writers) {
        long[] held = writer.get(50, TimeUnit.SECONDS);
        total += held.length;
        for (long key : held) {
          if (!core.contains(hash(key))) {
            missing.add(key);
          }
        }
      }
      assertThat(missing).as("keys added and never removed that the filter lost").isEmpty();
      assertThat(core.size()).as("items counted against keys held").isEqualTo(total);
    } finally {
      pool.shutdownNow();
    }
  }
}
