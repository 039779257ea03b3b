package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The guard's registry of transitions in flight: every one of them reaches a rebuild, whether it
 * sits in a slot or (when one thread holds more transitions than its slots) in the spill map; and
 * the registry allocates nothing per enter or leave.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InFlightRegistryTest {

  /** More than all slots of the registry, so that one thread fills its slots and spills. */
  private static final int MANY = 2_000;

  private final Set<Long> present = ConcurrentHashMap.newKeySet();
  private final CuckooGuard<Long> guard =
      CuckooGuard.newBuilder(Funnels.longFunnel())
          .expectedInsertions(10_000)
          .fingerprintBits(16)
          .seed(11)
          .keySource(present::forEach)
          .executor(Runnable::run)
          .build();

  private void assertFound(List<Long> keys, String when) {
    for (long key : keys) {
      assertThat(guard.mightContain(key)).as("key %s %s", key, when).isTrue();
    }
  }

  /**
   * Enters not yet visible at the source: the scan cannot see them, so the rebuilt filter has them
   * only if install handed every one of them over, slot or spill.
   */
  @Test
  void manyEntersInFlightOnOneThreadSurviveARebuild() {
    List<Long> keys = new ArrayList<>();
    List<PendingEnter<Long>> enters = new ArrayList<>();
    for (long k = 0; k < MANY; k++) {
      keys.add(k);
      enters.add(guard.beginEnter(k));
    }
    assertThat(guard.inFlight()).isEqualTo(MANY);

    guard.rebuild().join();
    assertFound(keys, "in flight across the rebuild");

    for (int i = 0; i < MANY; i++) {
      if (i % 2 == 0) {
        present.add(keys.get(i));
        enters.get(i).visible();
      } else {
        enters.get(i).abort();
      }
    }
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.stats().size()).as("the aborted half removed its copies").isEqualTo(MANY / 2);
    guard.rebuild().join();
    assertThat(guard.stats().size()).isEqualTo(MANY / 2);
    for (long key : present) {
      assertThat(guard.mightContain(key)).as("visible key %s", key).isTrue();
    }
  }

  /**
   * Leaves announced, removals issued (the source no longer shows the keys), gone() not yet called:
   * the keys stay tracked across the rebuild, and their later gone() finds each its own copy.
   */
  @Test
  void manyLeavesInFlightOnOneThreadKeepTheirKeysAcrossARebuild() {
    List<Long> keys = new ArrayList<>();
    for (long k = 0; k < MANY; k++) {
      keys.add(k);
      guard.beginEnter(k).visible();
      present.add(k);
    }
    List<PendingLeave<Long>> leaves = new ArrayList<>();
    for (long k = 0; k < MANY; k++) {
      leaves.add(guard.beginLeave(k));
      present.remove(k);
    }
    assertThat(guard.inFlight()).isEqualTo(MANY);

    guard.rebuild().join();
    assertFound(keys, "leaving across the rebuild");

    leaves.forEach(PendingLeave::gone);
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.stats().size()).isZero();
  }

  /** Transitions of several threads at once, all in flight at install. */
  @Test
  void entersInFlightOnSeveralThreadsSurviveARebuild() throws Exception {
    int threads = 8;
    int perThread = 100;
    CountDownLatch begun = new CountDownLatch(threads);
    CountDownLatch rebuilt = new CountDownLatch(1);
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long base = 1_000_000L * (t + 1);
      Thread w =
          new Thread(
              () -> {
                List<PendingEnter<Long>> enters = new ArrayList<>();
                for (long k = base; k < base + perThread; k++) {
                  enters.add(guard.beginEnter(k));
                }
                begun.countDown();
                try {
                  rebuilt.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                enters.forEach(PendingEnter::abort);
              });
      w.start();
      writers.add(w);
    }
    assertThat(begun.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(guard.inFlight()).isEqualTo((long) threads * perThread);
    guard.rebuild().join();
    for (int t = 0; t < threads; t++) {
      long base = 1_000_000L * (t + 1);
      for (long k = base; k < base + perThread; k++) {
        assertThat(guard.mightContain(k)).as("key %s of thread %s", k, t).isTrue();
      }
    }
    rebuilt.countDown();
    for (Thread w : writers) {
      w.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.stats().size()).isZero();
  }

  private static long bytesPerCall(Consumer<Long> call, Long key) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);
    int calls = 200_000;
    for (int i = 0; i < calls; i++) {
      call.accept(key);
    }
    long id = Thread.currentThread().getId();
    long least = Long.MAX_VALUE;
    for (int round = 0; round < 3; round++) {
      long before = threads.getThreadAllocatedBytes(id);
      for (int i = 0; i < calls; i++) {
        call.accept(key);
      }
      least = Math.min(least, (threads.getThreadAllocatedBytes(id) - before) / calls);
    }
    return least;
  }

  /** Keeps the handles reachable, so that escape analysis cannot remove them. */
  private static volatile Object handle = "";

  /**
   * Per enter and leave, the registry allocated 120 bytes (two capturing lambdas, an {@code int[2]}
   * and two map nodes) besides the 24-byte handle. Now the handle is all: 48 bytes for an enter and
   * a leave with their handles kept, nothing for keyEntered/keyLeft. The bound is below what one
   * extra 16-byte object per enter or leave would add.
   */
  @Test
  void entersAndLeavesAllocateNothingButTheirHandles() {
    Long key = 123_456_789L;
    assertThat(
            bytesPerCall(
                k -> {
                  guard.keyEntered(k);
                  guard.keyLeft(k);
                },
                key))
        .as("keyEntered + keyLeft, bytes per call")
        .isZero();
    assertThat(
            bytesPerCall(
                k -> {
                  PendingEnter<Long> enter = guard.beginEnter(k);
                  handle = enter;
                  enter.visible();
                  PendingLeave<Long> leave = guard.beginLeave(k);
                  handle = leave;
                  leave.gone();
                },
                key))
        .as("beginEnter/visible + beginLeave/gone, bytes per call")
        .isLessThanOrEqualTo(48 + 8);
    assertThat(guard.inFlight()).isZero();
    assertThat(guard.stats().size()).isZero();
  }
}
