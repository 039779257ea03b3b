package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The public batch paths under concurrency: one writer adds keys in batches ({@link
 * LongCuckooFilter#addAll(long[], int, int, boolean[])}) and removes them singly in a small filter
 * kept at high load (or growing), while readers look up random batches of 1 to 11 keys with {@link
 * LongCuckooFilter#mightContainAll(long[], boolean[])} (groups of four and the remainder). A key
 * counts as present for a batch if the writer's state word shows a copy owed before the batch and
 * no remove started until after it (the count is raised after the add returned and lowered, with a
 * new epoch, before the remove is called). Zero misses are required. Seeded; bounded by {@link
 * #RUN_MILLIS} per case and a JUnit timeout.
 */
class BatchLookupBesideWriterTest {

  private static final long RUN_MILLIS = 3_000;
  private static final int EPOCH_SHIFT = 20;
  private static final long COUNT_MASK = (1L << EPOCH_SHIFT) - 1;
  private static final int KEYS = 400;

  @ParameterizedTest(name = "f={0} b={1} expected={2} expansion={3}")
  @CsvSource({"8, 4, 64, 0", "13, 4, 64, 0", "16, 4, 64, 0", "8, 4, 16, 2", "13, 4, 16, 2"})
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void batchLookupsFindEveryKeyKnownPresent(int f, int b, int expected, int expansion)
      throws InterruptedException {
    long seed = 7_000L + 100L * f + expected + expansion;
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(expected)
            .fingerprintBits(f)
            .bucketSize(b)
            .expansion(expansion)
            .seed(seed)
            .build();
    AtomicLongArray state = new AtomicLongArray(KEYS);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong failedRemoves = new AtomicLong();
    AtomicLong checked = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    AtomicReference<String> firstMiss = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    threads.add(
        new Thread(
            () -> {
              SplittableRandom rnd = new SplittableRandom(seed);
              long[] batch = new long[8];
              boolean[] out = new boolean[8];
              long owedTotal = 0;
              try {
                start.await();
                long target = 0;
                for (long iteration = 0; !stop.get(); iteration++) {
                  if ((iteration & 255) == 0) {
                    target = (long) (filter.info().buckets() * b * 0.9);
                  }
                  if (owedTotal < target || rnd.nextInt(3) == 0) {
                    int len = 1 + rnd.nextInt(batch.length);
                    for (int k = 0; k < len; k++) {
                      batch[k] = rnd.nextInt(KEYS);
                    }
                    filter.addAll(batch, 0, len, out);
                    for (int k = 0; k < len; k++) {
                      if (out[k]) {
                        int id = (int) batch[k];
                        state.set(id, state.get(id) + 1);
                        owedTotal++;
                      }
                    }
                    writes.addAndGet(len);
                  } else {
                    int id = rnd.nextInt(KEYS);
                    for (int tries = 0; tries < 64 && (state.get(id) & COUNT_MASK) == 0; tries++) {
                      id = rnd.nextInt(KEYS);
                    }
                    long s = state.get(id);
                    if ((s & COUNT_MASK) > 0) {
                      state.set(
                          id, (((s >>> EPOCH_SHIFT) + 1) << EPOCH_SHIFT) | ((s & COUNT_MASK) - 1));
                      owedTotal--;
                      if (!filter.remove(id)) {
                        failedRemoves.incrementAndGet();
                      }
                      writes.incrementAndGet();
                    }
                  }
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              }
            },
            "writer"));
    for (int r = 0; r < 3; r++) {
      int reader = r;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom rnd = new SplittableRandom(seed * 13 + reader);
                try {
                  start.await();
                  while (!stop.get()) {
                    int len = 1 + rnd.nextInt(11);
                    long[] keys = new long[len];
                    long[] before = new long[len];
                    boolean[] out = new boolean[len];
                    for (int k = 0; k < len; k++) {
                      keys[k] = rnd.nextInt(KEYS);
                      before[k] = state.get((int) keys[k]);
                    }
                    filter.mightContainAll(keys, out);
                    for (int k = 0; k < len; k++) {
                      long after = state.get((int) keys[k]);
                      if ((before[k] & COUNT_MASK) > 0
                          && (before[k] >>> EPOCH_SHIFT) == (after >>> EPOCH_SHIFT)) {
                        checked.incrementAndGet();
                        if (!out[k]) {
                          misses.incrementAndGet();
                          firstMiss.compareAndSet(
                              null, "key " + keys[k] + " at " + k + " of a batch of " + len);
                        }
                      }
                    }
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "reader-" + r));
    }
    threads.forEach(Thread::start);
    start.countDown();
    Thread.sleep(RUN_MILLIS);
    stop.set(true);
    for (Thread t : threads) {
      t.join(20_000);
    }
    System.out.printf(
        "BatchLookupBesideWriterTest f=%d b=%d expected=%d e=%d: %d writes, %d checked, %d"
            + " sub-filters, %d misses, %d failed removes%n",
        f,
        b,
        expected,
        expansion,
        writes.get(),
        checked.get(),
        filter.info().subFilters(),
        misses.get(),
        failedRemoves.get());
    assertThat(failure.get()).isNull();
    assertThat(checked.get()).isGreaterThan(1_000);
    assertThat(misses.get()).as("false negatives; first: %s", firstMiss.get()).isZero();
    assertThat(failedRemoves.get()).isZero();
  }
}
