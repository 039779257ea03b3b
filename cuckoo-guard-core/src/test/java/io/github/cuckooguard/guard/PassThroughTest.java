package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySource;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When pass-through switches on, and which rebuilds may switch it off. */
class PassThroughTest {

  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final KeySource<Long> keySource = action -> source.forEach(action);

  /**
   * A guard whose first filter holds at most 8 fingerprints (2 buckets of 4) and cannot grow, with
   * the load trigger off so that only failed inserts start rebuilds.
   */
  private CuckooGuard.Builder<Long> tiny() {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .expectedInsertions(1)
        .expansion(0)
        .seed(7)
        .rebuildLoadThreshold(1.0);
  }

  /** Reports keys 0, 1, … as entering (before visible, as adapters do) until an insert fails. */
  private long enterUntilPassThrough(CuckooGuard<Long> guard) {
    for (long k = 0; k < 100; k++) {
      guard.keyEntered(k);
      source.add(k);
      if (guard.isPassThrough()) {
        return k;
      }
    }
    throw new AssertionError("100 keys fit into an 8-slot filter");
  }

  @Test
  void insertFailureSwitchesPassThroughOnUntilARebuildSwapsIn() {
    ManualExecutor executor = new ManualExecutor();
    RecordingListener listener = new RecordingListener();
    CuckooGuard<Long> guard =
        tiny().keySource(keySource).executor(executor).addListener(listener).build();
    long failedAt = enterUntilPassThrough(guard);

    assertThat(failedAt).isLessThanOrEqualTo(8);
    assertThat(guard.mightContain(1_000_000L))
        .as("pass-through answers true for anything")
        .isTrue();
    assertThat(guard.stats().passThrough()).isTrue();
    assertThat(executor.pending()).as("a rebuild was requested").isEqualTo(1);

    executor.runAll();

    assertThat(listener.starts).singleElement().asString().contains("insert failed");
    assertThat(listener.finishes).singleElement().matches(s -> !s.passThrough() && !s.rebuilding());
    assertThat(guard.isPassThrough()).isFalse();
    for (long k = 0; k <= failedAt; k++) {
      assertThat(guard.mightContain(k)).as("key %s", k).isTrue();
    }
    // The key whose insert failed is handed to the new filter at install (the scan might not see
    // it yet) and also emitted by the scan; the scan copy is dropped at the swap.
    assertThat(guard.stats().size()).isEqualTo(failedAt + 1);
    assertThat(guard.stats().rebuilds()).isEqualTo(1);
  }

  @Test
  void keyWhoseInsertFailedSurvivesARebuildThatScansBeforeTheKeyIsVisible() {
    // Runnable::run rebuilds inside keyEntered, before the caller adds the key to the source: the
    // scan cannot see it, so the rebuild must take it from the failed-insert record.
    CuckooGuard<Long> guard = tiny().keySource(keySource).executor(Runnable::run).build();
    long k = 0;
    while (guard.stats().rebuilds() == 0) {
      guard.keyEntered(k);
      source.add(k);
      k++;
    }
    assertThat(guard.isPassThrough()).isFalse();
    for (long key : source) {
      assertThat(guard.mightContain(key)).as("key %s", key).isTrue();
    }
    assertThat(guard.stats().size()).isEqualTo(source.size());
  }

  @Test
  void loadTriggeredRebuildOnTheCallingThreadStillReceivesTheTriggeringKey() {
    // The load trigger fires inside keyEntered; with Runnable::run the rebuild runs there, before
    // the caller makes the key visible. It must be requested before the add, so the add reaches
    // the new filter. (Regression: requested after the add, key 6 was a false negative.)
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(1)
            .expansion(0)
            .seed(7)
            .keySource(keySource)
            .executor(Runnable::run)
            .build();
    for (long k = 0; k < 200; k++) {
      guard.keyEntered(k);
      source.add(k);
      for (long key = 0; key <= k; key++) {
        assertThat(guard.mightContain(key)).as("key %s after entering %s", key, k).isTrue();
      }
    }
    assertThat(guard.stats().rebuilds()).isGreaterThanOrEqualTo(4);
    assertThat(guard.isPassThrough()).isFalse();
  }

  @Test
  void keyWhoseInsertFailedAndThatLeftBeforeTheRebuildLeavesNothingBehind() {
    ManualExecutor executor = new ManualExecutor();
    CuckooGuard<Long> guard = tiny().keySource(keySource).executor(executor).build();
    long failedAt = enterUntilPassThrough(guard);
    source.remove(failedAt);
    guard.keyLeft(failedAt);
    long sizeBefore = guard.stats().size();
    assertThat(sizeBefore)
        .as("the failed key never reached the filter, and its leave removed nothing")
        .isEqualTo(failedAt);

    executor.runAll();

    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.stats().size()).isEqualTo(source.size());
    for (long key : source) {
      assertThat(guard.mightContain(key)).isTrue();
    }
  }

  @Test
  void withoutKeySourceAnInsertFailureLeavesPassThroughOnForGood() {
    CuckooGuard<Long> guard = tiny().build();
    enterUntilPassThrough(guard);
    for (long k = 0; k < 10; k++) {
      guard.keyLeft(k);
    }
    assertThat(guard.isPassThrough()).isTrue();
    assertThat(guard.mightContain(12345L)).isTrue();
  }

  @Test
  void markStaleDuringARebuildKeepsPassThroughOnAfterItAndRunsAnother() throws Exception {
    CountDownLatch scanning = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch secondDone = new CountDownLatch(1);
    source.add(1L);
    KeySource<Long> blockingOnce =
        action -> {
          if (scanning.getCount() > 0) {
            scanning.countDown();
            release.await();
          }
          source.forEach(action);
        };
    RecordingListener listener =
        new RecordingListener() {
          @Override
          public void onFinish(io.github.cuckooguard.GuardStats stats) {
            super.onFinish(stats);
            if (finishes.size() == 2) {
              secondDone.countDown();
            }
          }
        };
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      CuckooGuard<Long> guard =
          CuckooGuard.newBuilder(Funnels.longFunnel())
              .keySource(blockingOnce)
              .executor(executor)
              .addListener(listener)
              .build();
      guard.keyEntered(1L);
      guard.markStale("first");
      assertThat(scanning.await(10, TimeUnit.SECONDS)).isTrue();
      guard.markStale("second, while the first rebuild scans");
      release.countDown();
      assertThat(secondDone.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(listener.starts)
          .containsExactly(
              "marked stale: first", "marked stale: second, while the first rebuild scans");
      assertThat(listener.finishes.get(0).passThrough()).as("after the first rebuild").isTrue();
      assertThat(listener.finishes.get(1).passThrough()).as("after the follow-up").isFalse();
      assertThat(guard.isPassThrough()).isFalse();
      assertThat(guard.mightContain(1L)).isTrue();
      assertThat(guard.stats().rebuilds()).isEqualTo(2);
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void requestsDuringARebuildCoalesceIntoOneFollowUp() throws Exception {
    CountDownLatch scanning = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    KeySource<Long> blockingOnce =
        action -> {
          if (scanning.getCount() > 0) {
            scanning.countDown();
            release.await();
          }
          source.forEach(action);
        };
    RecordingListener listener = new RecordingListener();
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      CuckooGuard<Long> guard =
          CuckooGuard.newBuilder(Funnels.longFunnel())
              .keySource(blockingOnce)
              .executor(executor)
              .addListener(listener)
              .build();
      var first = guard.rebuild();
      assertThat(scanning.await(10, TimeUnit.SECONDS)).isTrue();
      var second = guard.rebuild();
      var third = guard.rebuild();
      guard.markStale("meanwhile");
      assertThat(guard.stats().rebuilding()).isTrue();
      release.countDown();
      first.get(10, TimeUnit.SECONDS);
      second.get(10, TimeUnit.SECONDS);
      third.get(10, TimeUnit.SECONDS);
      assertThat(listener.starts).hasSize(2);
      assertThat(guard.stats().rebuilds()).isEqualTo(2);
      assertThat(guard.isPassThrough()).isFalse();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void insertFailureDuringARebuildIsClearedByThatRebuild() {
    // The new filter takes the key during the rebuild, so the running rebuild covers the failure.
    ManualExecutor executor = new ManualExecutor();
    RecordingListener listener = new RecordingListener();
    CuckooGuard<Long>[] holder = new CuckooGuard[1];
    KeySource<Long> enteringWhileScanning =
        action -> {
          source.forEach(action);
          for (long k = 1_000;
              k < 1_020;
              k++) { // overfills the 8-slot filter that lookups still read
            holder[0].keyEntered(k);
            source.add(k);
          }
          assertThat(holder[0].isPassThrough()).isTrue();
        };
    CuckooGuard<Long> guard =
        tiny().keySource(enteringWhileScanning).executor(executor).addListener(listener).build();
    holder[0] = guard;
    guard.keyEntered(1L);
    source.add(1L);
    guard.rebuild();
    executor.runAll();

    assertThat(listener.failures).isEmpty();
    assertThat(listener.starts).hasSize(1);
    assertThat(guard.isPassThrough()).isFalse();
    for (long key : source) {
      assertThat(guard.mightContain(key)).isTrue();
    }
    assertThat(guard.stats().size()).isEqualTo(source.size());
  }
}
