package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.RebuildListener;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Failed rebuilds keep the old filter in pass-through; user code that throws cannot break the
 * guard.
 */
class RebuildFailureTest {

  private final Set<Long> source = ConcurrentHashMap.newKeySet();

  private void enter(CuckooGuard<Long> guard, long from, long to) {
    for (long k = from; k < to; k++) {
      guard.keyEntered(k);
      source.add(k);
    }
  }

  @Test
  void keySourceThatThrowsFailsTheRebuildAndLeavesPassThroughOnUntilOneSucceeds() {
    AtomicBoolean broken = new AtomicBoolean(true);
    IOException boom = new IOException("database unreachable");
    KeySource<Long> keySource =
        action -> {
          if (broken.get()) {
            throw boom;
          }
          source.forEach(action);
        };
    RecordingListener listener = new RecordingListener();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(1_000)
            .keySource(keySource)
            .executor(Runnable::run)
            .addListener(listener)
            .build();
    enter(guard, 0, 100);
    assertThat(guard.mightContain(5_000L)).isFalse();

    assertThatThrownBy(() -> guard.rebuild().join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isSameAs(boom);

    assertThat(listener.failures).containsExactly(boom);
    assertThat(listener.finishes).isEmpty();
    assertThat(guard.isPassThrough()).isTrue();
    assertThat(guard.mightContain(5_000L)).isTrue();
    GuardStats failed = guard.stats();
    assertThat(failed.lastRebuildFailure()).isSameAs(boom);
    assertThat(failed.rebuilds()).isZero();
    assertThat(failed.rebuildFailures()).isEqualTo(1);
    assertThat(failed.size()).as("the old filter stays").isEqualTo(100);
    assertThat(failed.rebuilding()).isFalse();

    enter(guard, 100, 110); // the old filter keeps following the set meanwhile
    broken.set(false);
    guard.rebuild().join();

    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.stats().lastRebuildFailure()).isNull();
    assertThat(guard.stats().rebuildFailures())
        .as("a success does not reset the count")
        .isEqualTo(1);
    assertThat(guard.stats().rebuilds()).isEqualTo(1);
    assertThat(guard.stats().size()).isEqualTo(110);
    for (long k = 0; k < 110; k++) {
      assertThat(guard.mightContain(k)).isTrue();
    }
    assertThat(guard.mightContain(5_000L)).isFalse();
  }

  @Test
  void listenerThatThrowsIsIgnoredAndLaterListenersStillRun() {
    RebuildListener throwing =
        new RebuildListener() {
          @Override
          public void onStart(String reason) {
            throw new IllegalStateException("onStart");
          }

          @Override
          public void onProgress(long keysScanned) {
            throw new IllegalStateException("onProgress");
          }

          @Override
          public void onFinish(GuardStats stats) {
            throw new IllegalStateException("onFinish");
          }

          @Override
          public void onFailure(Throwable cause) {
            throw new Error("onFailure");
          }
        };
    RecordingListener recording = new RecordingListener();
    long keys = CuckooGuard.PROGRESS_INTERVAL + 10;
    AtomicBoolean broken = new AtomicBoolean();
    KeySource<Long> keySource =
        action -> {
          if (broken.get()) {
            throw new IOException("broken");
          }
          source.forEach(action);
        };
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .expectedInsertions(keys)
            .rebuildLoadThreshold(1.0)
            .keySource(keySource)
            .executor(Runnable::run)
            .addListener(throwing)
            .addListener(recording)
            .build();
    enter(guard, 0, keys);

    guard.rebuild().join();

    assertThat(recording.starts).containsExactly("requested");
    assertThat(recording.progress).containsExactly(CuckooGuard.PROGRESS_INTERVAL);
    assertThat(recording.finishes).hasSize(1);
    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.stats().size()).isEqualTo(keys);

    broken.set(true);
    assertThatThrownBy(() -> guard.rebuild().join()).hasRootCauseMessage("broken");
    assertThat(recording.failures).hasSize(1);
    assertThat(guard.isPassThrough()).isTrue();

    broken.set(false);
    guard.rebuild().join();
    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.mightContain(3L)).isTrue();
  }

  @Test
  void rejectedRebuildCountsAsFailed() {
    RecordingListener listener = new RecordingListener();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .keySource(action -> {})
            .executor(
                task -> {
                  throw new RejectedExecutionException("shut down");
                })
            .addListener(listener)
            .build();

    assertThatThrownBy(() -> guard.rebuild().join())
        .cause()
        .isInstanceOf(RejectedExecutionException.class);

    assertThat(listener.failures).singleElement().isInstanceOf(RejectedExecutionException.class);
    assertThat(guard.isPassThrough()).isTrue();
    assertThat(guard.stats().lastRebuildFailure()).hasMessageContaining("rejected");
    assertThat(guard.stats().rebuildFailures()).isEqualTo(1);
    assertThat(guard.stats().rebuilding()).isFalse();
  }

  @Test
  void nullKeyFromTheSourceFailsTheRebuild() {
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .keySource(action -> action.accept(null))
            .executor(Runnable::run)
            .build();
    assertThatThrownBy(() -> guard.rebuild().join())
        .cause()
        .isInstanceOf(NullPointerException.class)
        .hasMessage("KeySource emitted a null key");
    assertThat(guard.isPassThrough()).isTrue();
  }

  @Test
  void keysEmittedAfterForEachKeyReturnedAreRejected() {
    AtomicReference<Consumer<? super Long>> leaked = new AtomicReference<>();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .keySource(leaked::set)
            .executor(Runnable::run)
            .build();
    guard.rebuild().join();
    assertThatThrownBy(() -> leaked.get().accept(1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after forEachKey returned");
    assertThat(guard.stats().size()).isZero();
  }

  @Test
  void markStaleDuringAFailingRebuildStillEndsInPassThrough() {
    // markStale from inside the scan queues a follow-up; the scan then fails; the follow-up runs
    // (explicit requests are not backed off) and succeeds.
    AtomicBoolean first = new AtomicBoolean(true);
    CuckooGuard<Long>[] holder = new CuckooGuard[1];
    KeySource<Long> keySource =
        action -> {
          if (first.getAndSet(false)) {
            holder[0].markStale("changed during the scan");
            throw new IOException("first scan fails");
          }
          source.forEach(action);
        };
    RecordingListener listener = new RecordingListener();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .keySource(keySource)
            .executor(Runnable::run)
            .addListener(listener)
            .build();
    holder[0] = guard;
    enter(guard, 0, 10);

    assertThatThrownBy(() -> guard.rebuild().join()).hasRootCauseMessage("first scan fails");

    assertThat(listener.starts)
        .containsExactly("requested", "marked stale: changed during the scan");
    assertThat(listener.failures).hasSize(1);
    assertThat(listener.finishes).hasSize(1);
    assertThat(guard.isPassThrough()).isFalse();
    assertThat(guard.stats().size()).isEqualTo(10);
  }
}
