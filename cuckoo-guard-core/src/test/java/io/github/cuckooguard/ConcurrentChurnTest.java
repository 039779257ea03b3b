package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The no-false-negative promise under concurrency: two writer threads add and remove their own keys
 * so that the table sits just under the load where it fills up (90-95 % for 4-slot buckets, 80-86 %
 * for 2, 93-98 % for 8), where inserts kick long chains, while two reader threads check, over and
 * over, that every key of a resident set (added before the readers start, never removed) is found
 * and counted at least once. Zero misses are required. Bounded by the writers' operation count (not
 * by time); the readers stop when the writers are done, after at least one full pass each.
 */
class ConcurrentChurnTest {

  private static final int CAPACITY = 20_000;
  private static final int OPERATIONS_PER_WRITER = 250_000;

  @ParameterizedTest(name = "f={0} b={1} load {2}-{3}")
  @CsvSource({
    "8, 4, 0.90, 0.95",
    "12, 4, 0.90, 0.95",
    "12, 8, 0.93, 0.98",
    "16, 2, 0.80, 0.86",
    "4, 4, 0.90, 0.95"
  })
  void residentKeysAreNeverMissedWhileWritersChurnAtHighLoad(int f, int b, double low, double high)
      throws InterruptedException {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(CAPACITY)
            .fingerprintBits(f)
            .bucketSize(b)
            .expansion(0)
            .seed(10L * f + b)
            .build();
    long slots = filter.info().buckets() * b;
    long[] residents = new long[(int) (slots * 0.45)];
    for (int i = 0; i < residents.length; i++) {
      residents[i] = i;
      assertThat(filter.add(i)).isTrue();
    }

    AtomicBoolean writersDone = new AtomicBoolean();
    AtomicLong lookupMisses = new AtomicLong();
    AtomicLong countMisses = new AtomicLong();
    AtomicLong passes = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    double[] maxLoad = new double[2];
    for (int w = 0; w < 2; w++) {
      int writer = w;
      threads.add(
          new Thread(
              () -> {
                await(start);
                maxLoad[writer] = churn(filter, writer, slots, low, high);
              },
              "writer-" + w));
    }
    for (int r = 0; r < 2; r++) {
      threads.add(
          new Thread(
              () -> {
                await(start);
                do {
                  for (long key : residents) {
                    if (!filter.mightContain(key)) {
                      lookupMisses.incrementAndGet();
                    }
                    if (filter.count(key) < 1) {
                      countMisses.incrementAndGet();
                    }
                  }
                  passes.incrementAndGet();
                } while (!writersDone.get());
              },
              "reader-" + r));
    }
    for (Thread t : threads) {
      t.setUncaughtExceptionHandler((thread, e) -> failure.compareAndSet(null, e));
      t.start();
    }
    start.countDown();
    threads.get(0).join();
    threads.get(1).join();
    writersDone.set(true);
    for (Thread t : threads) {
      t.join();
    }

    assertThat(failure.get()).isNull();
    assertThat(lookupMisses.get())
        .as("mightContain false for a resident key (%s reader passes)", passes.get())
        .isZero();
    assertThat(countMisses.get())
        .as("count 0 for a resident key (%s reader passes)", passes.get())
        .isZero();
    assertThat(passes.get()).isGreaterThanOrEqualTo(2);
    assertThat(Math.max(maxLoad[0], maxLoad[1]))
        .as("highest load the writers reached")
        .isGreaterThanOrEqualTo(high - 0.01);
    for (long key : residents) {
      assertThat(filter.mightContain(key)).as("resident %s after the churn", key).isTrue();
    }
  }

  /**
   * One writer: adds fresh keys of its own below {@code low} load, removes its oldest above {@code
   * high}, and in between adds (70 %) or removes (30 %). Returns the highest load seen.
   */
  private static double churn(
      LongCuckooFilter filter, int writer, long slots, double low, double high) {
    SplittableRandom random = new SplittableRandom(writer);
    ArrayDeque<Long> own = new ArrayDeque<>();
    long next = (writer + 1L) << 40;
    double maxLoad = 0;
    for (int i = 0; i < OPERATIONS_PER_WRITER; i++) {
      double load = (double) filter.approximateElementCount() / slots;
      maxLoad = Math.max(maxLoad, load);
      boolean add = load < low || (load < high && random.nextInt(10) < 7) || own.isEmpty();
      if (add) {
        long key = next++;
        if (filter.add(key)) {
          own.add(key);
        }
      } else if (!filter.remove(own.poll())) {
        throw new AssertionError("remove of a key this writer added failed");
      }
    }
    return maxLoad;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
