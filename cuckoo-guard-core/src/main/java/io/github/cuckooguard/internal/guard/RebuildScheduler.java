package io.github.cuckooguard.internal.guard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs a guard's rebuilds on its executor, one at a time.
 *
 * <ul>
 *   <li>An explicit request (a user's {@code rebuild()}, {@code markStale}) made while a rebuild
 *       runs is queued as <em>one</em> follow-up that every such request shares; its future
 *       completes when that follow-up finishes, since the running rebuild may have scanned the
 *       source before the request was made.
 *   <li>An automatic request (load, growth, failed insert, fpp drift) made while a rebuild runs or
 *       is queued is dropped: the running rebuild builds a new right-sized filter and covers it.
 *       After a failed rebuild, automatic requests are dropped for a back-off (1 s, doubling up to
 *       {@value #MAX_BACKOFF_SECONDS} s) so that a broken source is not hammered.
 *   <li>After a successful rebuild, if {@code staleAgain} says pass-through is still on (a reason
 *       to go stale arrived while it ran), a follow-up runs at once.
 *   <li>A request may carry a transfer (a filter to load instead of scanning). A follow-up takes
 *       the latest transfer of its requests, unless one of them asked for a plain rebuild: then it
 *       scans, which satisfies every request (it starts after each of them).
 * </ul>
 *
 * <p>Thread safety: all methods may be called from any thread; the task is never started while the
 * caller holds this object's monitor, so an executor that runs tasks on the calling thread works
 * too.
 */
public final class RebuildScheduler {

  /** Longest back-off between automatic retries after failures. */
  public static final int MAX_BACKOFF_SECONDS = 64;

  /** One rebuild; throws if it failed (after it reported the failure itself). */
  @FunctionalInterface
  public interface Task {
    void rebuild(String reason) throws Exception;

    /**
     * A rebuild that may load its filter from {@code transfer} (null: scan); by default, a scan.
     */
    default void rebuild(String reason, @Nullable Object transfer) throws Exception {
      rebuild(reason);
    }
  }

  /** Reports a rebuild that could not even start (the executor rejected it). */
  @FunctionalInterface
  public interface RejectionHandler {
    void rejected(String reason, RejectedExecutionException e);
  }

  private final Executor executor;
  private final Task task;
  private final RejectionHandler rejectionHandler;
  private final BooleanSupplier staleAgain;
  private final LongSupplier nanoClock;

  // guarded by this
  private boolean running;
  private @Nullable String followUpReason;
  private @Nullable Object followUpTransfer;
  private boolean followUpScans;
  private List<CompletableFuture<Void>> followUpWaiters = new ArrayList<>();
  private int consecutiveFailures;
  // mirror the state above, for a lock-free fast path
  private volatile long retryNotBefore;
  private volatile boolean busy;
  private volatile boolean backingOff;
  // a rebuild is submitted or queued as a follow-up and has not begun yet
  private volatile boolean pending;

  /**
   * @param staleAgain whether a successful rebuild left pass-through on, so another must follow
   * @param nanoClock the time source of the back-off ({@code System::nanoTime})
   */
  public RebuildScheduler(
      Executor executor,
      Task task,
      RejectionHandler rejectionHandler,
      BooleanSupplier staleAgain,
      LongSupplier nanoClock) {
    this.executor = executor;
    this.task = task;
    this.rejectionHandler = rejectionHandler;
    this.staleAgain = staleAgain;
    this.nanoClock = nanoClock;
  }

  /** Whether a rebuild is running or queued. */
  public boolean isBusy() {
    return busy;
  }

  /** Whether a rebuild has been requested and has not begun yet. */
  public boolean isPending() {
    return pending;
  }

  /** Whether automatic requests are currently held back after a failure. */
  public boolean isBackingOff() {
    return backingOff;
  }

  /**
   * Requests a rebuild that starts after this call.
   *
   * @return completes when that rebuild swapped in its filter, or exceptionally with its failure
   */
  public CompletableFuture<Void> request(String reason) {
    return request(reason, null);
  }

  /**
   * Requests a rebuild that starts after this call and loads its filter from {@code transfer}
   * (null: scans; see the class comment for follow-ups).
   *
   * @return completes when that rebuild swapped in its filter, or exceptionally with its failure
   */
  public CompletableFuture<Void> request(String reason, @Nullable Object transfer) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (this) {
      if (running) {
        if (followUpReason == null) {
          followUpReason = reason;
        }
        if (transfer == null) {
          followUpScans = true;
        } else {
          followUpTransfer = transfer;
        }
        followUpWaiters.add(done);
        pending = true;
        return done;
      }
      running = true;
      busy = true;
      pending = true;
    }
    start(reason, transfer, new ArrayList<>(List.of(done)));
    return done;
  }

  /** Requests a rebuild unless one is running or queued, or failures are being backed off. */
  public void requestIfIdle(String reason) {
    if (busy || (backingOff && nanoClock.getAsLong() - retryNotBefore < 0)) {
      return;
    }
    synchronized (this) {
      if (running || (backingOff && nanoClock.getAsLong() - retryNotBefore < 0)) {
        return;
      }
      running = true;
      busy = true;
      pending = true;
      backingOff = false;
    }
    start(reason, null, new ArrayList<>());
  }

  private void start(
      String reason, @Nullable Object transfer, List<CompletableFuture<Void>> waiters) {
    try {
      executor.execute(() -> loop(reason, transfer, waiters));
    } catch (RejectedExecutionException e) {
      List<CompletableFuture<Void>> all;
      synchronized (this) {
        all = new ArrayList<>(waiters);
        all.addAll(followUpWaiters);
        followUpWaiters = new ArrayList<>();
        followUpReason = null;
        followUpTransfer = null;
        followUpScans = false;
        noteFailure();
        running = false;
        busy = false;
        pending = false;
      }
      rejectionHandler.rejected(reason, e);
      all.forEach(f -> f.completeExceptionally(e));
    }
  }

  private void loop(
      String firstReason,
      @Nullable Object firstTransfer,
      List<CompletableFuture<Void>> firstWaiters) {
    String reason = firstReason;
    @Nullable Object transfer = firstTransfer;
    List<CompletableFuture<Void>> waiters = firstWaiters;
    while (true) {
      pending = false;
      Throwable failure = null;
      try {
        if (transfer == null) {
          task.rebuild(reason);
        } else {
          task.rebuild(reason, transfer);
        }
      } catch (Throwable t) {
        failure = t;
      }
      boolean again;
      synchronized (this) {
        if (failure == null) {
          consecutiveFailures = 0;
          backingOff = false;
        } else {
          noteFailure();
        }
        again = followUpReason != null || (failure == null && staleAgain.getAsBoolean());
        pending = again;
        if (!again) {
          running = false;
          busy = false;
        }
      }
      for (CompletableFuture<Void> w : waiters) {
        if (failure == null) {
          w.complete(null);
        } else {
          w.completeExceptionally(failure);
        }
      }
      if (!again) {
        return;
      }
      synchronized (this) {
        reason =
            followUpReason != null ? followUpReason : "marked stale while the previous rebuild ran";
        waiters = followUpWaiters;
        transfer = followUpScans ? null : followUpTransfer;
        followUpReason = null;
        followUpTransfer = null;
        followUpScans = false;
        followUpWaiters = new ArrayList<>();
      }
    }
  }

  // guarded by this
  private void noteFailure() {
    consecutiveFailures++;
    long seconds =
        1L << Math.min(consecutiveFailures - 1, Long.numberOfTrailingZeros(MAX_BACKOFF_SECONDS));
    retryNotBefore = nanoClock.getAsLong() + TimeUnit.SECONDS.toNanos(seconds);
    backingOff = true;
  }
}
