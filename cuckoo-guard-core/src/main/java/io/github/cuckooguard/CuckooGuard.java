package io.github.cuckooguard;

import io.github.cuckooguard.internal.guard.FilterSpec;
import io.github.cuckooguard.internal.guard.FilterState;
import io.github.cuckooguard.internal.guard.ListenerSupport;
import io.github.cuckooguard.internal.guard.RebuildScheduler;
import io.github.cuckooguard.internal.guard.RebuildState;
import io.github.cuckooguard.internal.hash.FunnelIds;
import io.github.cuckooguard.spi.FilterTransfer;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A cuckoo filter kept in step with a set of keys that lives elsewhere (a cache's contents, the ids
 * in a table), so that a lookup of a key that is <b>definitely not</b> in that set can be skipped.
 * This is the key-level layer every adapter shares.
 *
 * <p>Promise: {@link #mightContain} never answers false for a key in the tracked set, provided the
 * tracked set is reported by the rules below; it answers true for a key outside the set with a
 * probability near the configured fpp, which {@link #stats()} measures from {@link
 * #reportFalsePositive} reports.
 *
 * <p>The write protocol, per key (the guard keeps the keys in flight itself):
 *
 * <ul>
 *   <li><b>Enter before visible.</b> {@link #beginEnter} when the key enters the set, before it
 *       becomes visible at the source (not again while it stays: a replace is not an enter); then
 *       {@link PendingEnter#visible()} once the source shows it, or {@link PendingEnter#abort()} if
 *       it never did (the write failed, the transaction rolled back).
 *   <li><b>Leave after gone.</b> {@link #beginLeave} before the removal is issued, then {@link
 *       PendingLeave#gone()} once the key is gone (or {@link PendingLeave#cancel()} if it stayed);
 *       or {@link #keyLeft} alone from inside the source's atomic removal. Only for a key whose
 *       enter happened.
 *   <li>Calls for one key are ordered by the caller (e.g. made inside the cache's per-key lock, or
 *       by the database's row lock); calls for different keys may run concurrently.
 *   <li>{@link #markStale} whenever the set may have changed without these calls.
 * </ul>
 *
 * Followed this way, a plain scan of the source is a correct {@link KeySource}: no tracked key is
 * missing from a rebuilt filter, and no remove is ever applied to a filter lacking its key's add
 * (the proof is in {@code internal.guard.RebuildState}).
 *
 * <p>Pass-through: while on, {@link #mightContain} answers true for every key (slower, never
 * wrong). It switches on when an insert fails (the filter is full and cannot grow), on {@link
 * #markStale}, and when a rebuild fails; it switches off only when a rebuild that started after the
 * last of those causes succeeds. <b>Without a {@link KeySource} nothing can rebuild, so
 * pass-through, once on, stays on for the life of the guard</b>; such a guard grows its filter by
 * expansion instead (on by default), and inserts fail only after {@value
 * io.github.cuckooguard.internal.FilterCore#MAX_SUB_FILTERS} sub-filters or with {@code
 * expansion(0)}.
 *
 * <p>Rebuild: with a {@link KeySource}, the guard builds a fresh filter in the background on its
 * executor when the load passes {@link Builder#rebuildLoadThreshold}, when the filter had to grow,
 * when an insert fails, when the observed fpp drifts above {@link Builder#fppDriftFactor} × the
 * target (after at least {@value #MIN_NEGATIVES_FOR_DRIFT} lookups of absent keys), on {@link
 * #markStale} and on {@link #rebuild()}. One rebuild runs at a time; requests made meanwhile share
 * one follow-up. The new filter holds max(expectedInsertions, 2 × current size) keys (with the same
 * headroom below the threshold as the first) at the same fpp, and may grow (a grown filter is
 * rebuilt again, right-sized). Enters and leaves continue during the rebuild and never wait for it,
 * except for two brief exclusive steps (install, swap). Keys in flight at install are handed to the
 * new filter by the guard; the {@link KeySource} emits what the source shows.
 *
 * <p>Thread safety: every method may be called from any thread. {@link #mightContain} takes no
 * lock; the write calls take the shared side of a read-write lock and run concurrently with each
 * other. The handles are single-use and owned by one thread at a time.
 *
 * <pre>{@code
 * CuckooGuard<Long> guard = CuckooGuard.newBuilder(Funnels.longFunnel())
 *     .expectedInsertions(1_000_000).fpp(0.001)
 *     .keySource(action -> repository.forEachId(action))
 *     .build();
 * try (PendingEnter<Long> enter = guard.beginEnter(id)) {   // before the row becomes visible
 *   repository.insert(id);
 *   enter.visible();
 * }
 * if (!guard.mightContain(id)) {   // definitely no such row: skip the query
 *   return null;
 * }
 * }</pre>
 *
 * @param <K> the key type
 */
public final class CuckooGuard<K> {

  /*
   * Implementation notes. The filters and the switch between them live in FilterState (locking,
   * swap order, failed inserts); the rebuild protocol and its proof in RebuildState; scheduling,
   * coalescing and back-off in RebuildScheduler. This class counts, triggers and orchestrates.
   */

  /**
   * Lookups of absent keys (definite misses plus false positives) needed before fpp drift counts.
   */
  public static final long MIN_NEGATIVES_FOR_DRIFT = 10_000;

  /** Keys scanned between two {@link RebuildListener#onProgress} calls. */
  public static final long PROGRESS_INTERVAL = 65_536;

  private static final Logger LOGGER = System.getLogger(CuckooGuard.class.getName());

  private final String name;
  private final Funnel<? super K> funnel;
  private final GuardSpec settings;
  private final FilterSpec spec;
  private final @Nullable KeySource<K> keySource;
  private final @Nullable RebuildScheduler scheduler;
  private final ListenerSupport listeners;
  private final double loadThreshold;
  private final double driftLimit;

  private final FilterState<K> state;

  // One counter per answer, so that a lookup increments one LongAdder, not two; lookups = the sum.
  private final LongAdder positives = new LongAdder();
  private final LongAdder definiteMisses = new LongAdder();
  private final LongAdder falsePositives = new LongAdder();
  private volatile long driftBaseMisses;
  private volatile long driftBaseFalsePositives;
  private final AtomicLong rebuilds = new AtomicLong();
  private final AtomicLong rebuildFailures = new AtomicLong();
  private volatile Duration lastRebuildDuration = Duration.ZERO;
  private volatile @Nullable Throwable lastRebuildFailure;

  private CuckooGuard(Builder<K> b, GuardSpec settings) {
    this.funnel = b.funnel;
    this.name =
        b.name != null
            ? b.name
            : "CuckooGuard@" + Integer.toHexString(System.identityHashCode(this));
    this.settings = settings;
    this.loadThreshold = settings.rebuildLoadThreshold();
    this.spec =
        new FilterSpec(
            settings.expectedInsertions(),
            settings.fpp(),
            settings.fingerprintBits(),
            settings.expansion(),
            settings.seed(),
            loadThreshold,
            settings.semiSorted());
    this.keySource = b.keySource;
    CuckooFilter<K> first;
    try {
      first = spec.initial(funnel);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "expectedInsertions ("
              + settings.expectedInsertions()
              + ") is too large"
              + " for this JVM: the guard sizes its first filter for "
              + spec.capacity(settings.expectedInsertions())
              + " keys (expectedInsertions × 0.95 / rebuildLoadThreshold "
              + loadThreshold
              + ", so that the tracked keys"
              + " stay below the rebuild threshold), and that filter cannot be built: "
              + e.getMessage(),
          e);
    }
    this.state = new FilterState<>(first, keySource != null);
    this.listeners = new ListenerSupport(name, b.listeners);
    this.driftLimit = settings.fppDriftFactor() * settings.targetFpp();
    this.scheduler =
        keySource == null
            ? null
            : new RebuildScheduler(
                b.executor != null ? b.executor : ForkJoinPool.commonPool(),
                new RebuildScheduler.Task() {
                  @Override
                  public void rebuild(String reason) throws Exception {
                    rebuildOnce(reason, null);
                  }

                  @Override
                  @SuppressWarnings("unchecked")
                  public void rebuild(String reason, @Nullable Object transfer) throws Exception {
                    rebuildOnce(reason, (FilterTransfer<K>) transfer);
                  }
                },
                this::rejected,
                state::isPassThrough,
                System::nanoTime);
  }

  /**
   * A builder for guards of keys funnelled by {@code funnel}.
   *
   * @throws NullPointerException if {@code funnel} is null
   * @throws IllegalArgumentException if the funnel's {@link Funnel#id() id} is longer than {@value
   *     Funnel#MAX_ID_BYTES} UTF-8 bytes
   */
  public static <K> Builder<K> newBuilder(Funnel<? super K> funnel) {
    return new Builder<>(FunnelIds.checked(Objects.requireNonNull(funnel, "funnel")));
  }

  /** The settings this guard was built with. */
  public GuardSpec spec() {
    return settings;
  }

  /** The name given to the builder, or a generated one; used in log lines. */
  public String name() {
    return name;
  }

  // ---- lookups ----

  /**
   * False if {@code key} is definitely not in the tracked set; true if it is, or, with a
   * probability near the target fpp, if it is not; always true while pass-through is on. Counts a
   * lookup, and a definite miss when it answers false. Lock-free.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public boolean mightContain(K key) {
    Objects.requireNonNull(key, "key");
    if (state.mightContain(key)) {
      positives.increment();
      if (scheduler != null && scheduler.isBackingOff() && state.isPassThrough()) {
        scheduler.requestIfIdle("retry after a failed rebuild");
      }
      return true;
    }
    definiteMisses.increment();
    return false;
  }

  /** Keys a batch lookup answers per read of the pass-through switch and the current filter. */
  static final int BATCH_CHUNK = 256;

  /**
   * {@link #mightContain} of every element of {@code keys}, written to {@code out[i]}: false only
   * for keys definitely not in the tracked set, true for every key while pass-through is on.
   * Allocates nothing for the ready funnels of {@link Funnels} (nor for custom ones whose keys fit
   * 4 KiB); looks keys up in groups of four validated together, as {@link
   * CuckooFilter#mightContainAll(List, boolean[])}. Counts each key as a lookup, and each false as
   * a definite miss, as {@link #mightContain} does. Lock-free.
   *
   * <p>Each answer is one that {@link #mightContain} could have given for its key during this call:
   * the pass-through switch and then the current filter (the order a single lookup reads them in)
   * are read again for every {@value #BATCH_CHUNK} keys, so a batch never answers from a filter
   * that was replaced before that group began, nor from the filter while pass-through was already
   * on when the group began.
   *
   * @throws NullPointerException if {@code keys} or any key is null (answers before the null one
   *     may have been written)
   * @throws IndexOutOfBoundsException if {@code out} is shorter than {@code keys}
   */
  public void mightContainAll(List<? extends K> keys, boolean[] out) {
    int length = keys.size();
    Objects.checkFromIndexSize(0, length, out.length);
    long misses = 0;
    boolean passedThrough = false;
    for (int from = 0; from < length; from += BATCH_CHUNK) {
      int to = Math.min(length, from + BATCH_CHUNK);
      if (state.isPassThrough()) {
        passedThrough = true;
        for (int i = from; i < to; i++) {
          Objects.requireNonNull(keys.get(i), "key");
          out[i] = true;
        }
        continue;
      }
      state.current().lookUp(keys, from, to, out);
      misses += falses(out, from, to);
    }
    counted(length, misses, passedThrough);
  }

  /**
   * {@link #mightContain} of every element of {@code keys}, written to {@code out[i]}; as {@link
   * #mightContainAll(List, boolean[])}.
   *
   * @throws NullPointerException if {@code keys} or any key is null (answers before the null one
   *     may have been written)
   * @throws IndexOutOfBoundsException if {@code out} is shorter than {@code keys}
   */
  public void mightContainAll(K[] keys, boolean[] out) {
    int length = keys.length;
    Objects.checkFromIndexSize(0, length, out.length);
    long misses = 0;
    boolean passedThrough = false;
    for (int from = 0; from < length; from += BATCH_CHUNK) {
      int to = Math.min(length, from + BATCH_CHUNK);
      if (state.isPassThrough()) {
        passedThrough = true;
        for (int i = from; i < to; i++) {
          Objects.requireNonNull(keys[i], "key");
          out[i] = true;
        }
        continue;
      }
      state.current().lookUp(keys, from, to, out);
      misses += falses(out, from, to);
    }
    counted(length, misses, passedThrough);
  }

  private static int falses(boolean[] out, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      n += out[i] ? 0 : 1;
    }
    return n;
  }

  /** The statistics and the back-off retry of {@link #mightContain}, for a batch. */
  private void counted(int keys, long misses, boolean passedThrough) {
    if (keys > misses) {
      positives.add(keys - misses);
    }
    if (misses > 0) {
      definiteMisses.add(misses);
    }
    if (passedThrough && scheduler != null && scheduler.isBackingOff() && state.isPassThrough()) {
      scheduler.requestIfIdle("retry after a failed rebuild");
    }
  }

  /**
   * Reports that {@code key} answered "might contain" but turned out absent at the source; feeds
   * {@link GuardStats#observedFpp()} and the drift trigger. Ignored while pass-through is on, since
   * those answers say nothing about the filter.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void reportFalsePositive(K key) {
    Objects.requireNonNull(key, "key");
    if (state.isPassThrough()) {
      return;
    }
    falsePositives.increment();
    if (scheduler != null && !scheduler.isBusy()) {
      long fp = falsePositives.sum() - driftBaseFalsePositives;
      long negatives = fp + definiteMisses.sum() - driftBaseMisses;
      if (negatives >= MIN_NEGATIVES_FOR_DRIFT && fp > driftLimit * negatives) {
        scheduler.requestIfIdle(
            "observed fpp "
                + (double) fp / negatives
                + " over "
                + negatives
                + " negatives exceeds the drift limit "
                + driftLimit);
      }
    }
  }

  // ---- mutations ----

  /**
   * Begins an enter of {@code key}: stores one fingerprint for it now, before the key becomes
   * visible at the source, and keeps the key <em>in flight</em> until the handle is ended. Call it
   * once per entry (not on a replace), then make the key visible, then call {@link
   * PendingEnter#visible()}; if the key never became visible, {@link PendingEnter#abort()} removes
   * the fingerprint again. While the key is in flight a rebuild keeps its fingerprint, so the
   * {@link KeySource} only needs to emit what the source shows. Never fails for a full filter: the
   * guard switches to pass-through and, with a {@link KeySource}, rebuilds.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public PendingEnter<K> beginEnter(K key) {
    Objects.requireNonNull(key, "key");
    return new PendingEnter<>(this, key, store(key, true));
  }

  /**
   * Announces that {@code key} is about to be removed at the source. The key stays tracked until
   * {@link PendingLeave#gone()}, which removes its fingerprint from whichever filter holds it then,
   * also a filter that a rebuild swapped in meanwhile; {@link PendingLeave#cancel()} means the key
   * stayed. Call it before the removal can become visible, and only for a key whose enter happened.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public PendingLeave<K> beginLeave(K key) {
    Objects.requireNonNull(key, "key");
    return new PendingLeave<>(this, key, state.beginLeave(key));
  }

  /**
   * An enter and its visibility in one call ({@code beginEnter(key).visible()} without the handle).
   * Without a {@link KeySource} this is all an enter needs: call it before the key becomes visible.
   * With one it is correct only where no rebuild's scan can miss the key between this call and the
   * moment the source shows it; in general use {@link #beginEnter}.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void keyEntered(K key) {
    Objects.requireNonNull(key, "key");
    store(key, false);
  }

  /**
   * A leave in one call ({@code beginLeave(key).gone()} without the handle): removes the key's one
   * fingerprint. Call it only if the key's enter happened, and, with a {@link KeySource}, no later
   * than the removal becomes visible to the source's scan: inside the source's atomic removal (as
   * Caffeine's eviction listener runs), or before it. A leave reported after the key is gone must
   * be announced before the removal with {@link #beginLeave}: otherwise a rebuild whose scan no
   * longer sees the key could be swapped in first, and this remove would take a colliding key's
   * fingerprint from the new filter (a false negative).
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void keyLeft(K key) {
    state.end(Objects.requireNonNull(key, "key"), false, false, FilterState.NO_SLOT);
  }

  /** Keys whose enter or leave has begun and not ended (the in-flight registry). */
  public long inFlight() {
    return state.transitionsInFlight();
  }

  // The handles' ends, each with the slot its begin returned (see FilterState).

  void enterVisible(K key, int slot) {
    state.endTransition(key, true, slot);
  }

  void enterAborted(K key, int slot) {
    state.end(key, true, true, slot);
  }

  void leaveGone(K key, int slot) {
    state.end(key, true, false, slot);
  }

  void leaveCancelled(K key, int slot) {
    state.endTransition(key, false, slot);
  }

  /** Adds {@code key}; returns the slot of its transition if {@code inFlight}. */
  private int store(K key, boolean inFlight) {
    if (scheduler != null && !scheduler.isBusy()) {
      // Requested before the add: an executor that runs the rebuild on this thread then finishes
      // it before the key is added, so the add reaches the new filter.
      String growth = state.growth(loadThreshold);
      if (growth != null) {
        scheduler.requestIfIdle(growth);
      }
    }
    boolean wasPassThrough = state.isPassThrough();
    long entered = state.enter(key, inFlight);
    if ((entered & FilterState.INSERT_FAILED) == 0) {
      return (int) entered;
    }
    String failure = state.insertFailure();
    if (scheduler != null) {
      scheduler.requestIfIdle(failure);
    } else if (!wasPassThrough) {
      LOGGER.log(
          Level.WARNING,
          "Cuckoo guard '"
              + name
              + "': "
              + failure
              + "; without a KeySource pass-through"
              + " stays on for good");
    }
    return (int) entered;
  }

  /**
   * The tracked set may have changed without {@link #keyEntered}/{@link #keyLeft} calls (a cache
   * cleared without events, a bulk SQL statement, a missed event): switches pass-through on and,
   * with a {@link KeySource}, requests a rebuild. A rebuild already running when this is called
   * does not switch pass-through off; the follow-up does. Without a key source pass-through stays
   * on for good.
   *
   * <p>Order matters: a rebuild clears pass-through only if it started after the last call, and it
   * can only see what is visible at the source when it scans. So call this once the change is
   * complete and visible (e.g. after commit); calling it also before the change starts closes the
   * window in which the change is visible but the guard does not know yet.
   *
   * @param reason logged and passed to {@link RebuildListener#onStart}
   * @throws NullPointerException if {@code reason} is null
   */
  public void markStale(String reason) {
    Objects.requireNonNull(reason, "reason");
    state.markStale();
    if (scheduler == null) {
      LOGGER.log(
          Level.WARNING,
          "Cuckoo guard '"
              + name
              + "' marked stale ("
              + reason
              + "); without a KeySource"
              + " pass-through stays on for good");
      return;
    }
    LOGGER.log(
        Level.INFO, () -> "Cuckoo guard '" + name + "' marked stale (" + reason + "); rebuilding");
    scheduler.request("marked stale: " + reason);
  }

  /** Whether {@link #mightContain} currently answers true for every key. */
  public boolean isPassThrough() {
    return state.isPassThrough();
  }

  // ---- rebuild ----

  /**
   * Rebuilds the filter from the {@link KeySource} now, or right after the rebuild that is running.
   *
   * @return completes when a rebuild that started after this call swapped in its filter, or
   *     exceptionally with its failure; without a key source, a future already failed with an
   *     {@link IllegalStateException}
   */
  public CompletableFuture<Void> rebuild() {
    if (scheduler == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException(
              "Cuckoo guard '"
                  + name
                  + "': rebuild() needs a KeySource to read the tracked keys from; build the guard with"
                  + " CuckooGuard.newBuilder(funnel).keySource(source)"));
    }
    return scheduler.request("requested");
  }

  /**
   * A copy of the current filter for a peer to load ({@link FilterTransfer}), taken in one
   * exclusive step of the write protocol: every enter begun before it has added its fingerprint,
   * and every leave not yet gone still has its copy, so every key in flight at that instant is in
   * the copy. Null while pass-through is on (the filter may lack a key then). The copy is
   * independent of the guard: its {@link CuckooFilter#scanDump} chunks form one consistent dump.
   * Costs one copy of the fingerprint storage, made while writes wait. (Dumping the copy needs a
   * funnel with a stable id, as {@link CuckooFilter#scanDump} does.)
   */
  public @Nullable CuckooFilter<K> snapshot() {
    return state.snapshot(CuckooFilter::copy);
  }

  /**
   * Rebuilds the filter from a filter {@code transfer} loads (a peer's snapshot) instead of a scan
   * of the {@link KeySource}, now or right after the rebuild that is running; if the transfer
   * fails, the same rebuild scans the key source instead. Enters and leaves made while the transfer
   * runs are kept by the rebuild and added to the loaded filter, exactly as a scanning rebuild
   * keeps them (see {@link FilterTransfer} for what the loaded filter must hold). A scan requested
   * meanwhile ({@link #rebuild()}, {@link #markStale}) makes the follow-up a scan, which also
   * completes this request.
   *
   * @return completes when a rebuild that started after this call swapped in its filter (loaded or
   *     scanned), or exceptionally with its failure; without a key source, a future already failed
   *     with an {@link IllegalStateException}
   * @throws NullPointerException if {@code transfer} is null
   */
  public CompletableFuture<Void> rebuildFrom(FilterTransfer<K> transfer) {
    Objects.requireNonNull(transfer, "transfer");
    if (scheduler == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException(
              "Cuckoo guard '"
                  + name
                  + "': rebuildFrom needs a KeySource to fall back on; build the guard with"
                  + " CuckooGuard.newBuilder(funnel).keySource(source)"));
    }
    return scheduler.request("transfer", transfer);
  }

  private void rebuildOnce(String reason, @Nullable FilterTransfer<K> transfer) throws Exception {
    long start = System.nanoTime();
    listeners.started(reason);
    RebuildState<K> r = null;
    try {
      if (transfer == null) {
        r = state.install(spec.rebuilt(funnel, state.current().approximateElementCount()));
      } else {
        r = state.installDeferred();
        if (transferred(r, transfer)) {
          state.swap(r);
          r = null;
        } else if (!state.attach(
            r, spec.rebuilt(funnel, state.current().approximateElementCount()))) {
          throw new IllegalStateException(
              "the filter being rebuilt could not take the keys entered during the transfer");
        }
      }
      if (r != null) {
        RebuildState<K> scan = r;
        Objects.requireNonNull(keySource)
            .forEachKey(
                key -> {
                  long n = scan.scanned(key);
                  if (n % PROGRESS_INTERVAL == 0) {
                    listeners.progress(n);
                  }
                });
        scan.closeScan();
        state.swap(scan);
      }
    } catch (Throwable t) {
      Throwable cause = r != null && r.failure() != null ? r.failure() : t;
      state.abandon(r, cause);
      lastRebuildFailure = cause;
      rebuildFailures.incrementAndGet();
      listeners.failed(cause);
      throw t;
    }
    driftBaseMisses = definiteMisses.sum();
    driftBaseFalsePositives = falsePositives.sum();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    lastRebuildDuration = took;
    lastRebuildFailure = null;
    rebuilds.incrementAndGet();
    listeners.finished(stats(), r != null ? r.keysScanned() : 0, took);
  }

  /**
   * Loads the filter of {@code transfer} and attaches it to the deferred rebuild {@code r}.
   *
   * @return false if the transfer failed or its filter could not be attached: scan instead
   */
  private boolean transferred(RebuildState<K> r, FilterTransfer<K> transfer)
      throws InterruptedException {
    CuckooFilter<K> loaded;
    try {
      loaded = transfer.load(() -> CuckooFilter.<K>loader(funnel));
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      LOGGER.log(
          Level.INFO,
          "Cuckoo guard '"
              + name
              + "': no filter transferred ("
              + e
              + "); rebuilding from the KeySource");
      return false;
    }
    if (state.attach(r, Objects.requireNonNull(loaded, "the transfer returned null"))) {
      return true;
    }
    LOGGER.log(
        Level.WARNING,
        "Cuckoo guard '"
            + name
            + "': the transferred filter ("
            + loaded.info()
            + ") could not take the keys entered during the transfer; rebuilding from the"
            + " KeySource");
    return false;
  }

  private void rejected(String reason, RejectedExecutionException e) {
    RejectedExecutionException cause =
        new RejectedExecutionException("the executor rejected the rebuild (" + reason + ")", e);
    state.abandon(null, cause);
    lastRebuildFailure = cause;
    rebuildFailures.incrementAndGet();
    listeners.failed(cause);
  }

  // ---- stats ----

  /** A snapshot of the counters and of the current filter; lock-free. */
  public GuardStats stats() {
    long fp = falsePositives.sum();
    long misses = definiteMisses.sum();
    CuckooFilter<K> current = state.current();
    return new GuardStats(
        positives.sum() + misses,
        misses,
        fp,
        fp + misses == 0 ? Double.NaN : (double) fp / (fp + misses),
        current.approximateElementCount(),
        current.loadFactor(),
        state.bytes(),
        rebuilds.get(),
        rebuildFailures.get(),
        lastRebuildDuration,
        lastRebuildFailure,
        state.isPassThrough(),
        state.rebuilding() != null || (scheduler != null && scheduler.isPending()));
  }

  @Override
  public String toString() {
    return "CuckooGuard[" + name + ", " + stats() + "]";
  }

  /**
   * Builds {@link CuckooGuard}s. Each setter checks its value at once and may be called only once
   * ({@link #addListener} any number of times); messages name the bad value and the accepted range.
   * Filter settings have the meaning and defaults of {@link AbstractFilterBuilder}. Not
   * thread-safe.
   *
   * @param <K> the key type
   */
  public static final class Builder<K> {
    private final Funnel<? super K> funnel;
    private final GuardSpec.Builder settings = GuardSpec.newBuilder();
    private boolean settingsTouched;
    private @Nullable GuardSpec spec;
    private @Nullable KeySource<K> keySource;
    private @Nullable Executor executor;
    private final List<RebuildListener> listeners = new ArrayList<>();
    private @Nullable String name;

    private Builder(Funnel<? super K> funnel) {
      this.funnel = funnel;
    }

    /**
     * All filter and rebuild settings at once, instead of the single setters.
     *
     * @throws IllegalStateException if a single setting or a spec was already set
     * @throws NullPointerException if {@code spec} is null
     */
    public Builder<K> spec(GuardSpec spec) {
      requireUnset(
          this.spec == null && !settingsTouched,
          "spec",
          this.spec != null ? this.spec : "single settings");
      this.spec = Objects.requireNonNull(spec, "spec");
      return this;
    }

    private GuardSpec.Builder settings() {
      if (spec != null) {
        throw new IllegalStateException("the settings were already given as a spec (" + spec + ")");
      }
      settingsTouched = true;
      return settings;
    }

    /**
     * @see GuardSpec.Builder#expectedInsertions
     */
    public Builder<K> expectedInsertions(long expectedInsertions) {
      settings().expectedInsertions(expectedInsertions);
      return this;
    }

    /**
     * @see GuardSpec.Builder#fpp
     */
    public Builder<K> fpp(double fpp) {
      settings().fpp(fpp);
      return this;
    }

    /**
     * @see GuardSpec.Builder#fingerprintBits
     */
    public Builder<K> fingerprintBits(int fingerprintBits) {
      settings().fingerprintBits(fingerprintBits);
      return this;
    }

    /**
     * @see GuardSpec.Builder#expansion
     */
    public Builder<K> expansion(int expansion) {
      settings().expansion(expansion);
      return this;
    }

    /**
     * @see GuardSpec.Builder#semiSorted
     */
    public Builder<K> semiSorted() {
      settings().semiSorted();
      return this;
    }

    /**
     * @see GuardSpec.Builder#seed
     */
    public Builder<K> seed(long seed) {
      settings().seed(seed);
      return this;
    }

    /**
     * @see GuardSpec.Builder#rebuildLoadThreshold
     */
    public Builder<K> rebuildLoadThreshold(double threshold) {
      settings().rebuildLoadThreshold(threshold);
      return this;
    }

    /**
     * @see GuardSpec.Builder#fppDriftFactor
     */
    public Builder<K> fppDriftFactor(double factor) {
      settings().fppDriftFactor(factor);
      return this;
    }

    /**
     * Where rebuilds read the tracked keys from. Without one the guard never rebuilds, and
     * pass-through, once on, stays on.
     *
     * @throws NullPointerException if {@code keySource} is null
     */
    public Builder<K> keySource(KeySource<K> keySource) {
      requireUnset(this.keySource == null, "keySource", this.keySource);
      this.keySource = Objects.requireNonNull(keySource, "keySource");
      return this;
    }

    /**
     * Runs rebuilds (default {@link ForkJoinPool#commonPool()}). In production it must not run the
     * task on the calling thread: rebuilds are requested from {@code keyEntered}, which adapters
     * call inside cache locks. {@code Runnable::run} is meant for tests. Ignored without a key
     * source.
     *
     * @throws NullPointerException if {@code executor} is null
     */
    public Builder<K> executor(Executor executor) {
      requireUnset(this.executor == null, "executor", this.executor);
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Adds a listener to rebuild start, progress, finish and failure; listeners are called in the
     * order added.
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder<K> addListener(RebuildListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * A name for log lines and {@link #toString()}.
     *
     * @throws IllegalArgumentException if blank
     */
    public Builder<K> name(String name) {
      requireUnset(this.name == null, "name", this.name);
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    private static void requireUnset(boolean unset, String setting, @Nullable Object current) {
      if (!unset) {
        throw new IllegalStateException(setting + " was already set to " + current);
      }
    }

    /**
     * A new guard with an empty filter, pass-through off.
     *
     * @throws IllegalArgumentException if the filter settings cannot be met (a table larger than a
     *     Java array, an fpp below what 16-bit fingerprints reach)
     */
    public CuckooGuard<K> build() {
      return new CuckooGuard<>(this, spec != null ? spec : settings.build());
    }
  }
}
