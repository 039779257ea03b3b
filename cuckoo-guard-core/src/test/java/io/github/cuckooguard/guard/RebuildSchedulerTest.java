package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.internal.guard.RebuildScheduler;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Coalescing, follow-ups and back-off of the rebuild scheduler, on a manual executor and clock. */
class RebuildSchedulerTest {

  private final ManualExecutor executor = new ManualExecutor();
  private final AtomicLong clock = new AtomicLong(1_000);
  private final List<String> ran = new ArrayList<>();
  private final AtomicBoolean failing = new AtomicBoolean();
  private final AtomicBoolean stale = new AtomicBoolean();
  private final List<Throwable> rejected = new ArrayList<>();

  private final RebuildScheduler scheduler =
      new RebuildScheduler(
          executor,
          reason -> {
            ran.add(reason);
            if (failing.get()) {
              throw new IOException("fails");
            }
          },
          (reason, e) -> rejected.add(e),
          stale::get,
          clock::get);

  @Test
  void explicitRequestsDuringARunShareOneFollowUp() {
    CompletableFuture<Void> first = scheduler.request("a");
    CompletableFuture<Void> second = scheduler.request("b");
    CompletableFuture<Void> third = scheduler.request("c");
    assertThat(scheduler.isBusy()).isTrue();
    assertThat(scheduler.isPending()).isTrue();
    assertThat(executor.pending()).isEqualTo(1);

    executor.runAll();

    assertThat(ran).containsExactly("a", "b");
    assertThat(first).isCompleted();
    assertThat(second).isCompleted();
    assertThat(third).isCompleted();
    assertThat(scheduler.isBusy()).isFalse();
    assertThat(scheduler.isPending()).isFalse();
  }

  @Test
  void automaticRequestsAreDroppedWhileARebuildIsQueuedOrRunning() {
    scheduler.requestIfIdle("load");
    scheduler.requestIfIdle("load again");
    executor.runAll();
    assertThat(ran).containsExactly("load");
  }

  @Test
  void passThroughStillOnAfterASuccessfulRunStartsAFollowUp() {
    stale.set(true);
    RebuildScheduler s =
        new RebuildScheduler(
            executor,
            reason -> {
              ran.add(reason);
              if (ran.size() == 2) {
                stale.set(
                    false); // the follow-up started after the last stale mark, so it clears it
              }
            },
            (reason, e) -> {},
            stale::get,
            clock::get);
    s.request("first");
    executor.runAll();
    assertThat(ran).containsExactly("first", "marked stale while the previous rebuild ran");
    assertThat(s.isBusy()).isFalse();
  }

  @Test
  void aFailedRunStartsNoFollowUpForPassThroughAlone() {
    stale.set(true); // a failed rebuild leaves pass-through on; retrying at once would spin
    failing.set(true);
    scheduler.request("first");
    executor.runAll();
    assertThat(ran).containsExactly("first");
  }

  @Test
  void afterAFailureAutomaticRequestsBackOffWithDoublingDelays() {
    failing.set(true);
    CompletableFuture<Void> done = scheduler.request("explicit");
    executor.runAll();
    assertThat(done).isCompletedExceptionally();
    assertThat(scheduler.isBackingOff()).isTrue();

    scheduler.requestIfIdle("auto");
    assertThat(executor.pending()).as("within the first second").isZero();
    clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
    scheduler.requestIfIdle("auto after 1 s");
    executor.runAll();
    assertThat(ran).containsExactly("explicit", "auto after 1 s");

    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_999));
    scheduler.requestIfIdle("too early: the second back-off is 2 s");
    assertThat(executor.pending()).isZero();
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
    failing.set(false);
    scheduler.requestIfIdle("auto after 2 s");
    executor.runAll();
    assertThat(ran).endsWith("auto after 2 s");
    assertThat(scheduler.isBackingOff()).isFalse();

    scheduler.requestIfIdle("no back-off after a success");
    assertThat(executor.pending()).isEqualTo(1);
  }

  @Test
  void explicitRequestsAreNotBackedOff() {
    failing.set(true);
    scheduler.request("one");
    executor.runAll();
    scheduler.request("two");
    executor.runAll();
    assertThat(ran).containsExactly("one", "two");
  }

  @Test
  void backOffIsCappedAt64Seconds() {
    failing.set(true);
    for (int i = 0; i < 10; i++) {
      scheduler.request("fail " + i);
      executor.runAll();
    }
    clock.addAndGet(TimeUnit.SECONDS.toNanos(RebuildScheduler.MAX_BACKOFF_SECONDS) - 1);
    scheduler.requestIfIdle("just before");
    assertThat(executor.pending()).isZero();
    clock.incrementAndGet();
    scheduler.requestIfIdle("at the cap");
    assertThat(executor.pending()).isEqualTo(1);
  }

  @Test
  void rejectionFailsEveryWaiterAndFreesTheScheduler() {
    RebuildScheduler s =
        new RebuildScheduler(
            task -> {
              throw new java.util.concurrent.RejectedExecutionException("full");
            },
            reason -> ran.add(reason),
            (reason, e) -> rejected.add(e),
            stale::get,
            clock::get);
    CompletableFuture<Void> done = s.request("x");
    assertThat(done).isCompletedExceptionally();
    assertThat(rejected).hasSize(1);
    assertThat(s.isBusy()).isFalse();
    assertThat(ran).isEmpty();
  }
}
