package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.PendingEnter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code CuckooGuard.mightContainAll}: the answers of single lookups, the guard's pass-through
 * (every answer true), the statistics, no allocation for the ready funnels, and no false negative
 * while the guard rebuilds and swaps filters under a batch.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GuardBatchLookupTest {

  private static CuckooGuard<Long> guardOf(int expected) {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .expectedInsertions(expected)
        .fpp(0.01)
        .seed(3)
        .build();
  }

  @Test
  void batchAnswersAreTheSingleAnswersAndAreCountedAsLookups() {
    CuckooGuard<Long> guard = guardOf(10_000);
    for (long k = 0; k < 5_000; k++) {
      guard.keyEntered(k);
    }
    List<Long> keys = new ArrayList<>();
    for (long k = 0; k < 10_003; k++) { // not a multiple of the group of four or the chunk
      keys.add(k);
    }
    boolean[] fromList = new boolean[keys.size()];
    guard.mightContainAll(keys, fromList);
    GuardStats afterList = guard.stats();
    boolean[] fromArray = new boolean[keys.size()];
    guard.mightContainAll(keys.toArray(new Long[0]), fromArray);
    GuardStats afterArray = guard.stats();
    boolean[] single = new boolean[keys.size()];
    int falses = 0;
    for (int i = 0; i < single.length; i++) {
      single[i] = guard.mightContain(keys.get(i));
      falses += single[i] ? 0 : 1;
    }
    assertThat(fromList).isEqualTo(single);
    assertThat(fromArray).isEqualTo(single);
    for (int k = 0; k < 5_000; k++) {
      assertThat(fromList[k]).as("entered key %s", k).isTrue();
    }
    assertThat(falses).as("absent keys answered false").isGreaterThan(4_800);
    assertThat(afterList.lookups()).isEqualTo(keys.size());
    assertThat(afterList.definiteMisses()).isEqualTo(falses);
    assertThat(afterArray.lookups()).isEqualTo(2L * keys.size());
    assertThat(afterArray.definiteMisses()).isEqualTo(2L * falses);
  }

  @Test
  void inPassThroughEveryAnswerIsTrueAndNoneCountsAsAMiss() {
    CuckooGuard<Long> guard = guardOf(1_000);
    guard.keyEntered(1L);
    guard.markStale("test: the set changed behind the guard's back");
    assertThat(guard.isPassThrough()).isTrue();
    List<Long> keys = new ArrayList<>();
    for (long k = 0; k < 1_000; k++) {
      keys.add(k);
    }
    boolean[] out = new boolean[keys.size()];
    guard.mightContainAll(keys, out);
    boolean[] all = new boolean[keys.size()];
    Arrays.fill(all, true);
    assertThat(out).isEqualTo(all);
    Arrays.fill(out, false);
    guard.mightContainAll(keys.toArray(new Long[0]), out);
    assertThat(out).isEqualTo(all);
    assertThat(guard.stats().lookups()).isEqualTo(2_000);
    assertThat(guard.stats().definiteMisses()).isZero();
  }

  @Test
  void nullKeysAndShortOutputsAreRefusedInEitherMode() {
    CuckooGuard<Long> guard = guardOf(1_000);
    List<Long> withNull = Arrays.asList(1L, 2L, null, 4L);
    assertThatThrownBy(() -> guard.mightContainAll(withNull, new boolean[4]))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> guard.mightContainAll(List.of(1L, 2L), new boolean[1]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    guard.markStale("test");
    assertThatThrownBy(() -> guard.mightContainAll(withNull, new boolean[4]))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> guard.mightContainAll(new Long[] {1L, null}, new boolean[2]))
        .isInstanceOf(NullPointerException.class);
  }

  private static long allocatedBy(Runnable work) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    work.run(); // first use: the thread's scratch buffer, class loading
    long before = threads.getThreadAllocatedBytes(id);
    long baseline = threads.getThreadAllocatedBytes(id) - before;
    before = threads.getThreadAllocatedBytes(id);
    work.run();
    return threads.getThreadAllocatedBytes(id) - before - baseline;
  }

  private static <T> void assertNoAllocation(String what, Funnel<T> funnel, List<T> keys) {
    CuckooGuard<T> guard =
        CuckooGuard.newBuilder(funnel).expectedInsertions(keys.size() * 2L).seed(1).build();
    for (int i = 0; i < keys.size(); i += 2) {
      guard.keyEntered(keys.get(i));
    }
    @SuppressWarnings("unchecked")
    T[] array = (T[]) keys.toArray();
    boolean[] out = new boolean[keys.size()];
    int rounds = 50;
    long bytes =
        allocatedBy(
            () -> {
              for (int r = 0; r < rounds; r++) {
                guard.mightContainAll(keys, out);
                guard.mightContainAll(array, out);
              }
            });
    // 100 batches of 1,000 keys: slack for one-off runtime events only (< 0.05 B per key)
    assertThat(bytes)
        .as("%s: bytes allocated by %s batch lookups of %s keys", what, 2 * rounds, keys.size())
        .isLessThan(4096);
    for (int i = 0; i < keys.size(); i += 2) {
      assertThat(out[i]).isTrue();
    }
  }

  @Test
  void batchLookupsOfTheReadyFunnelsAllocateNothing() {
    List<Long> longs = new ArrayList<>();
    List<CharSequence> strings = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      longs.add(1_000_000L + i);
      strings.add("key-" + i);
    }
    assertNoAllocation("long", Funnels.longFunnel(), longs);
    assertNoAllocation("string", Funnels.stringFunnel(), strings);
  }

  /**
   * One writer enters keys 0, 1, 2, … (each visible at the source right after its enter) into a
   * guard sized for 1,000 keys, while rebuilds are requested over and over and the load trigger
   * fires on its own, so filters are swapped under running batches; two readers look up batches of
   * keys that were already visible. Zero false answers are required.
   */
  @Test
  void batchesNeverMissAVisibleKeyWhileTheGuardRebuildsAndSwapsFilters() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      CuckooGuard<Long> guard =
          CuckooGuard.newBuilder(Funnels.longFunnel())
              .expectedInsertions(1_000)
              .fpp(0.01)
              .seed(5)
              .keySource(action -> source.forEach(action))
              .executor(executor)
              .build();
      int total = 200_000;
      AtomicLong visible = new AtomicLong();
      AtomicBoolean done = new AtomicBoolean();
      AtomicLong misses = new AtomicLong();
      AtomicLong checked = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      threads.add(
          new Thread(
              () -> {
                try {
                  CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
                  for (long k = 0; k < total; k++) {
                    try (PendingEnter<Long> enter = guard.beginEnter(k)) {
                      source.add(k);
                      enter.visible();
                    }
                    visible.set(k + 1);
                    if (k % 5_000 == 0) {
                      last = guard.rebuild();
                    }
                  }
                  last.get(60, TimeUnit.SECONDS);
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
                  List<Long> batch = new ArrayList<>();
                  boolean[] out = new boolean[300]; // more than one chunk
                  while (!done.get()) {
                    long hi = visible.get();
                    if (hi == 0) {
                      continue;
                    }
                    batch.clear();
                    for (int i = 0; i < out.length; i++) {
                      batch.add(random.nextLong(hi));
                    }
                    guard.mightContainAll(batch, out);
                    for (boolean b : out) {
                      if (!b) {
                        misses.incrementAndGet();
                      }
                    }
                    checked.addAndGet(out.length);
                  }
                },
                "reader-" + r));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(failure.get()).isNull();
      assertThat(guard.stats().rebuilds()).as("rebuilds under the batches").isGreaterThan(3);
      assertThat(checked.get()).isGreaterThan(10_000);
      assertThat(misses.get()).as("visible keys answered false of %s", checked).isZero();
    } finally {
      executor.shutdownNow();
    }
  }
}
