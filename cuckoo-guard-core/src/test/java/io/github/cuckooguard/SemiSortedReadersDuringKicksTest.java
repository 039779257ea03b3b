package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Lock-free readers beside a writer of a semi-sorted filter never miss a resident key. Every write
 * of a semi-sorted bucket re-encodes all four of its slots, and kicks move fingerprints between
 * buckets, so a reader that read a bucket between two stores, or the two buckets of a pair on
 * either side of a move, would see a bucket without a fingerprint that stays; the readers'
 * validation against the stamps is what keeps them exact. The writer keeps the filter between 93 %
 * and 97.5 % full, where most adds kick, by adding its own keys and removing its oldest; two
 * readers check a resident set (added first, never removed) over and over with {@code mightContain}
 * and {@code mightContainAll}. Zero misses are required. Bounded by the writer's operation count.
 */
class SemiSortedReadersDuringKicksTest {

  private static final int CAPACITY = 2_000;
  private static final int OPERATIONS = 600_000;

  @ParameterizedTest(name = "f={0}")
  @CsvSource({"13", "8", "16"})
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void readersNeverMissAResidentKeyWhileKicksRewriteSemiSortedBuckets(int f)
      throws InterruptedException {
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(CAPACITY)
            .fingerprintBits(f)
            .expansion(0)
            .semiSorted()
            .seed(7L * f)
            .build();
    long slots = filter.info().buckets() * 4;
    long[] residents = new long[(int) (slots * 0.5)];
    for (int i = 0; i < residents.length; i++) {
      residents[i] = i;
      assertThat(filter.add(i)).isTrue();
    }
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong passes = new AtomicLong();
    AtomicLong highLoadAdds = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    threads.add(
        new Thread(
            () -> {
              try {
                start.await();
                churn(filter, slots, highLoadAdds);
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              } finally {
                done.set(true);
              }
            },
            "writer"));
    for (int r = 0; r < 2; r++) {
      boolean batch = r == 1;
      threads.add(
          new Thread(
              () -> {
                try {
                  start.await();
                  boolean[] out = new boolean[64];
                  long[] keys = new long[64];
                  do {
                    if (batch) {
                      for (int i = 0; i + 64 <= residents.length; i += 64) {
                        System.arraycopy(residents, i, keys, 0, 64);
                        filter.mightContainAll(keys, out);
                        for (boolean b : out) {
                          if (!b) {
                            misses.incrementAndGet();
                          }
                        }
                      }
                    } else {
                      for (long key : residents) {
                        if (!filter.mightContain(key)) {
                          misses.incrementAndGet();
                        }
                      }
                    }
                    passes.incrementAndGet();
                  } while (!done.get());
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "reader-" + r));
    }
    for (Thread t : threads) {
      t.start();
    }
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    assertThat(misses.get())
        .as("resident keys reported absent (%s reader passes)", passes.get())
        .isZero();
    assertThat(passes.get()).isGreaterThanOrEqualTo(4);
    assertThat(highLoadAdds.get())
        .as("adds made above 90 % load, where most kick")
        .isGreaterThan(50_000);
    for (long key : residents) {
      assertThat(filter.mightContain(key)).isTrue();
    }
  }

  /** Adds fresh keys up to 97.5 % load, removes the oldest down to 93 %, in between 60/40. */
  private static void churn(LongCuckooFilter filter, long slots, AtomicLong highLoadAdds) {
    SplittableRandom random = new SplittableRandom(slots);
    ArrayDeque<Long> own = new ArrayDeque<>();
    long next = 1L << 40;
    for (int i = 0; i < OPERATIONS; i++) {
      double load = (double) filter.approximateElementCount() / slots;
      boolean add = load < 0.93 || (load < 0.975 && random.nextInt(10) < 6) || own.isEmpty();
      if (add) {
        long key = next++;
        if (load > 0.9) {
          // Above 90 % most adds find both buckets full and kick.
          highLoadAdds.incrementAndGet();
        }
        if (filter.add(key)) {
          own.add(key);
        }
      } else if (!filter.remove(own.poll())) {
        throw new AssertionError("remove of an own key failed");
      }
    }
  }
}
