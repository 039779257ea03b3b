package io.github.cuckooguard;

import static org.assertj.core.api.Assertions.assertThat;

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
 * The no-false-negative promise while a filter grows under lock-free readers. One writer adds keys
 * 0, 1, 2, … to a filter sized for 1,000 keys, so that it appends sub-filter after sub-filter (each
 * wider than the one before), and removes the key {@code window} places behind, so that removes
 * clear copies in every sub-filter and later adds refill the older ones. Two readers pick keys
 * between the oldest one not yet being removed and the newest one added, and check them with {@code
 * mightContain} and with {@code mightContainAll}; a key counts as missed only if it was still not
 * being removed after the lookup returned false (the writer publishes the removal bound before it
 * removes). Zero misses are required. Bounded by the writer's operation count; the readers stop
 * when it is done. Small fingerprints make keys share fingerprints and buckets in the first
 * sub-filter, where a remove that took another key's copy would show.
 */
class ConcurrentGrowthTest {

  private static final int EXPECTED = 1_000;

  @ParameterizedTest(name = "expansion {0}, f = {1}, window {2}, semi-sorted {3}")
  @CsvSource({
    "1, 6, 20000, false",
    "1, 12, 20000, false",
    "2, 6, 150000, false",
    "2, 8, 150000, false",
    "2, 16, 150000, false",
    // Semi-sorted: sub-filters up to 16 bits semi-sorted, wider ones plain.
    "1, 6, 20000, true",
    "2, 8, 150000, true"
  })
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void readersNeverMissAResidentKeyWhileTheFilterGrowsAndRemovesSpanSubFilters(
      int expansion, int bits, int window, boolean semiSorted) throws InterruptedException {
    LongCuckooFilter.Builder builder =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(EXPECTED)
            .fingerprintBits(bits)
            .expansion(expansion)
            .seed(1000L * expansion + bits);
    LongCuckooFilter filter = (semiSorted ? builder.semiSorted() : builder).build();
    int totalAdds = 3 * window;
    AtomicLong added = new AtomicLong(); // keys below this were added
    AtomicLong removedBelow = new AtomicLong(); // keys below this are (being) removed
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong checks = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    threads.add(
        new Thread(
            () -> {
              try {
                start.await();
                for (long k = 0; k < totalAdds; k++) {
                  if (!filter.add(k)) {
                    throw new AssertionError("add " + k + " failed: " + filter.info());
                  }
                  added.set(k + 1);
                  long old = k - window;
                  if (old >= 0) {
                    removedBelow.set(old + 1);
                    if (!filter.remove(old)) {
                      throw new AssertionError("remove " + old + " found no copy");
                    }
                  }
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              } finally {
                done.set(true);
              }
            },
            "writer"));
    for (int r = 0; r < 2; r++) {
      long seed = r;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed);
                long[] batch = new long[32];
                boolean[] out = new boolean[32];
                try {
                  start.await();
                  while (!done.get()) {
                    long hi = added.get();
                    long lo = removedBelow.get();
                    if (hi - lo < batch.length) {
                      continue;
                    }
                    long k = random.nextLong(lo, hi);
                    if (!filter.mightContain(k) && removedBelow.get() <= k) {
                      misses.incrementAndGet();
                    }
                    for (int i = 0; i < batch.length; i++) {
                      batch[i] = random.nextLong(lo, hi);
                    }
                    filter.mightContainAll(batch, out);
                    for (int i = 0; i < batch.length; i++) {
                      if (!out[i] && removedBelow.get() <= batch[i]) {
                        misses.incrementAndGet();
                      }
                    }
                    checks.addAndGet(1 + batch.length);
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "reader-" + r));
    }
    threads.forEach(Thread::start);
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    FilterInfo info = filter.info();
    assertThat(info.subFilters()).as("the filter grew: %s", info).isGreaterThan(5);
    assertThat(checks.get()).as("lookups made beside the writer").isGreaterThan(10_000);
    assertThat(misses.get()).as("resident keys reported absent, of %s lookups", checks).isZero();
    for (long k = totalAdds - window; k < totalAdds; k++) {
      assertThat(filter.mightContain(k)).as("key %s after the run", k).isTrue();
    }
  }
}
