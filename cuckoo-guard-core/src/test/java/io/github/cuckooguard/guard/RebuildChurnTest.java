package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rebuilds racing with churn. Writer threads enter and leave random keys of a small universe
 * against a shadow tracked set, while a driver keeps requesting rebuilds and the load trigger fires
 * on its own. Fingerprints are 6 bits, so keys share fingerprints and buckets all the time: an
 * unpaired remove anywhere would soon delete another key's only copy.
 *
 * <p>The shadow is split into stripes, each guarded by a lock that a writer holds across the guard
 * call and the shadow update (enter: guard first, then the shadow; leave: the shadow first, then
 * the guard), as a cache's per-key lock would. The key source scans stripe by stripe under the same
 * locks, so it satisfies the {@link KeySource} contract, including for keys entered but not yet in
 * the shadow.
 *
 * <p>Checked: every lookup of a key the shadow holds, made under that key's lock while writers and
 * rebuilds run, answers true; at each quiescent point every shadow key answers true; after a final
 * rebuild at quiescence the filter holds exactly one fingerprint per shadow key. Passing figure:
 * zero false negatives. Seeds are fixed; the interleavings differ from run to run, which only
 * varies which races are exercised, never the bound. Run with plain and with semi-sorted filters
 * (the first and every rebuilt one; rebuilt filters may grow into plain sub-filters wider than 16
 * bits).
 */
class RebuildChurnTest {

  private static final int STRIPES = 32;
  private static final int UNIVERSE = 4_096;
  private static final int WRITERS = 3;
  private static final int ROUNDS = 20;
  private static final int OPS_PER_ROUND = 5_000;

  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
  private final List<Set<Long>> shadow = new ArrayList<>();
  private final AtomicLong falseNegatives = new AtomicLong();
  private final AtomicLong checkedWithoutPassThrough = new AtomicLong();

  RebuildChurnTest() {
    for (int s = 0; s < STRIPES; s++) {
      locks[s] = new ReentrantLock();
      shadow.add(new HashSet<>());
    }
  }

  private static int stripe(long key) {
    return (int) (key % STRIPES);
  }

  private final KeySource<Long> keySource =
      action -> {
        for (int s = 0; s < STRIPES; s++) {
          locks[s].lock();
          try {
            shadow.get(s).forEach(action);
          } finally {
            locks[s].unlock();
          }
        }
      };

  private void churn(CuckooGuard<Long> guard, Random random) {
    for (int i = 0; i < OPS_PER_ROUND; i++) {
      long key = random.nextInt(UNIVERSE);
      int s = stripe(key);
      locks[s].lock();
      try {
        Set<Long> set = shadow.get(s);
        if (set.contains(key)) {
          check(guard, key);
          if (random.nextInt(3) > 0) { // leave twice as often as a present key is only looked up
            set.remove(key);
            guard.keyLeft(key);
          }
        } else {
          guard.keyEntered(key);
          set.add(key);
          check(guard, key);
        }
      } finally {
        locks[s].unlock();
      }
    }
  }

  private void check(CuckooGuard<Long> guard, long key) {
    boolean passThrough = guard.isPassThrough();
    if (!guard.mightContain(key)) {
      falseNegatives.incrementAndGet();
    } else if (!passThrough) {
      checkedWithoutPassThrough.incrementAndGet();
    }
  }

  private long checkAllAtQuiescence(CuckooGuard<Long> guard) {
    long missing = 0;
    for (Set<Long> set : shadow) {
      for (long key : set) {
        if (!guard.mightContain(key)) {
          missing++;
        }
      }
    }
    return missing;
  }

  private long shadowSize() {
    return shadow.stream().mapToLong(Set::size).sum();
  }

  @ParameterizedTest(name = "semi-sorted {0}")
  @ValueSource(booleans = {false, true})
  void rebuildsRacingWithChurnNeverLoseATrackedKey(boolean semiSorted) throws Exception {
    ExecutorService rebuilder = Executors.newSingleThreadExecutor();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
    try {
      CuckooGuard.Builder<Long> builder =
          CuckooGuard.newBuilder(Funnels.longFunnel())
              .expectedInsertions(512)
              .fingerprintBits(6)
              .seed(11)
              .keySource(keySource)
              .executor(rebuilder)
              .name("churn");
      CuckooGuard<Long> guard = (semiSorted ? builder.semiSorted() : builder).build();
      assertThat(guard.spec().semiSorted()).isEqualTo(semiSorted);

      AtomicLong quiescentMisses = new AtomicLong();
      CyclicBarrier barrier =
          new CyclicBarrier(WRITERS, () -> quiescentMisses.addAndGet(checkAllAtQuiescence(guard)));
      AtomicBoolean stop = new AtomicBoolean();

      List<CompletableFuture<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Random random = new Random(1_000 + w);
        writers.add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    for (int round = 0; round < ROUNDS; round++) {
                      churn(guard, random);
                      barrier.await(30, TimeUnit.SECONDS);
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                pool));
      }
      CompletableFuture<?> driver =
          CompletableFuture.runAsync(
              () -> {
                while (!stop.get()) {
                  guard.rebuild().join();
                }
              },
              pool);

      CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      stop.set(true);
      driver.get(30, TimeUnit.SECONDS);

      assertThat(falseNegatives.get()).as("false negatives under churn").isZero();
      assertThat(quiescentMisses.get()).as("false negatives at quiescent points").isZero();
      assertThat(checkedWithoutPassThrough.get())
          .as("lookups that the filter (not pass-through) answered")
          .isGreaterThan(WRITERS * ROUNDS * OPS_PER_ROUND / 4);
      assertThat(guard.stats().rebuilds())
          .as("rebuilds that raced with the churn")
          .isGreaterThanOrEqualTo(20);
      assertThat(guard.stats().lastRebuildFailure()).isNull();

      guard.rebuild().get(30, TimeUnit.SECONDS);
      assertThat(checkAllAtQuiescence(guard)).isZero();
      assertThat(guard.isPassThrough()).isFalse();
      assertThat(guard.stats().size())
          .as("one fingerprint per tracked key after a quiet rebuild")
          .isEqualTo(shadowSize());
      // The rebuilt filter has the layout too: 6-bit fingerprints in 5 bits per slot.
      double slots = guard.stats().size() / guard.stats().loadFactor();
      double bitsPerSlot = guard.stats().sizeInBytes() * 8 / slots;
      assertThat(bitsPerSlot).isBetween(semiSorted ? 5.0 : 6.0, semiSorted ? 5.3 : 6.3);
    } finally {
      pool.shutdownNow();
      rebuilder.shutdownNow();
    }
  }
}
