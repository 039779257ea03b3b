package io.github.cuckooguard;

import io.github.cuckooguard.internal.guard.FilterSpec;
import io.github.cuckooguard.internal.guard.FilterState;
import io.github.cuckooguard.internal.guard.ListenerSupport;
import io.github.cuckooguard.internal.guard.RebuildScheduler;
import io.github.cuckooguard.internal.guard.RebuildState;
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
 * A cuckoo filter kept in step with a set of keys that lives elsewhere (a cache's contents, the
 * ids in a table), so that a lookup of a key that is <b>definitely not</b> in that set can be
 * skipped. This is the key-level layer every adapter shares.
 *
 * <p>Promise: {@link #mightContain} never answers false for a key in the tracked set, provided the
 * tracked set is reported by the rules below; it answers true for a key outside the set with a
 * probability near the configured fpp, which {@link #stats()} measures from
 * {@link #reportFalsePositive} reports.
 *
 * <p>Reporting rules, per key:
 * <ul>
 *   <li>{@link #keyEntered} once when the key enters the set, <em>before</em> it becomes visible
 *       there; not again while it stays (a replace is not an enter).
 *   <li>{@link #keyLeft} once when it leaves, <em>after</em> it is gone, and only if its
 *       {@code keyEntered} happened.
 *   <li>Calls for one key are serialised by the caller (e.g. made inside the cache's per-key lock);
 *       calls for different keys may run concurrently.
 *   <li>{@link #markStale} whenever the set may have changed without these calls.
 * </ul>
 *
 * <p>Pass-through: while on, {@link #mightContain} answers true for every key (slower, never
 * wrong). It switches on when an insert fails (the filter is full and cannot grow), on
 * {@link #markStale}, and when a rebuild fails; it switches off only when a rebuild that started
 * after the last of those causes succeeds. <b>Without a {@link KeySource} nothing can rebuild, so
 * pass-through, once on, stays on for the life of the guard</b>; such a guard grows its filter by
 * expansion instead (on by default), and inserts fail only after
 * {@value io.github.cuckooguard.internal.FilterCore#MAX_SUB_FILTERS} sub-filters or with
 * {@code expansion(0)}.
 *
 * <p>Rebuild: with a {@link KeySource}, the guard builds a fresh filter in the background on its
 * executor when the load passes {@link Builder#rebuildLoadThreshold}, when the filter had to grow,
 * when an insert fails, when the observed fpp drifts above {@link Builder#fppDriftFactor} × the
 * target (after at least {@value #MIN_NEGATIVES_FOR_DRIFT} lookups of absent keys), on
 * {@link #markStale} and on {@link #rebuild()}. One rebuild runs at a time; requests made meanwhile
 * share one follow-up. The new filter holds max(expectedInsertions, 2 × current size) keys (with
 * the same headroom below the threshold as the first) at the same fpp, and may grow (a grown
 * filter is rebuilt again, right-sized). Enters and leaves continue during the rebuild and
 * never wait for it, except for two brief exclusive steps (install, swap). The {@link KeySource}
 * contract, in-flight keys included, is what makes the rebuilt filter complete: read it before
 * writing one.
 *
 * <p>Thread safety: every method may be called from any thread. {@link #mightContain} takes no
 * lock; {@link #keyEntered} and {@link #keyLeft} take the shared side of a read-write lock and run
 * concurrently with each other.
 *
 * <pre>{@code
 * CuckooGuard<Long> guard = CuckooGuard.newBuilder(Funnels.longFunnel())
 *     .expectedInsertions(1_000_000).fpp(0.001)
 *     .keySource(action -> repository.forEachId(action))
 *     .build();
 * guard.keyEntered(id);            // before the row becomes visible
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

  /** Load factor above which a rebuild starts, unless set. */
  public static final double DEFAULT_REBUILD_LOAD_THRESHOLD = 0.85;
  /** Multiple of the target fpp that the observed fpp must exceed to start a rebuild, unless set. */
  public static final double DEFAULT_FPP_DRIFT_FACTOR = 3.0;
  /** Lookups of absent keys (definite misses plus false positives) needed before fpp drift counts. */
  public static final long MIN_NEGATIVES_FOR_DRIFT = 10_000;
  /** Keys scanned between two {@link RebuildListener#onProgress} calls. */
  public static final long PROGRESS_INTERVAL = 65_536;

  private static final Logger LOGGER = System.getLogger(CuckooGuard.class.getName());

  private final String name;
  private final Funnel<? super K> funnel;
  private final FilterSpec spec;
  private final @Nullable KeySource<K> keySource;
  private final @Nullable RebuildScheduler scheduler;
  private final ListenerSupport listeners;
  private final double loadThreshold;
  private final double driftLimit;

  private final FilterState<K> state;

  private final LongAdder lookups = new LongAdder();
  private final LongAdder definiteMisses = new LongAdder();
  private final LongAdder falsePositives = new LongAdder();
  private volatile long driftBaseMisses;
  private volatile long driftBaseFalsePositives;
  private final AtomicLong rebuilds = new AtomicLong();
  private volatile Duration lastRebuildDuration = Duration.ZERO;
  private volatile @Nullable Throwable lastRebuildFailure;

  private CuckooGuard(Builder<K> b) {
    this.funnel = b.funnel;
    this.name = b.name != null ? b.name : "CuckooGuard@" + Integer.toHexString(System.identityHashCode(this));
    this.loadThreshold = Double.isNaN(b.loadThreshold) ? DEFAULT_REBUILD_LOAD_THRESHOLD : b.loadThreshold;
    this.spec = new FilterSpec(
        b.expectedInsertions > 0 ? b.expectedInsertions : AbstractFilterBuilder.DEFAULT_EXPECTED_INSERTIONS,
        b.fpp, b.fingerprintBits, b.expansion >= 0 ? b.expansion : AbstractFilterBuilder.DEFAULT_EXPANSION, b.seed,
        loadThreshold);
    this.keySource = b.keySource;
    this.state = new FilterState<>(spec.initial(funnel), keySource != null);
    this.listeners = new ListenerSupport(name, b.listeners);
    double factor = Double.isNaN(b.driftFactor) ? DEFAULT_FPP_DRIFT_FACTOR : b.driftFactor;
    this.driftLimit = factor * spec.targetFpp();
    this.scheduler = keySource == null ? null
        : new RebuildScheduler(b.executor != null ? b.executor : ForkJoinPool.commonPool(), this::rebuildOnce,
            this::rejected, state::isPassThrough, System::nanoTime);
  }

  /**
   * A builder for guards of keys funnelled by {@code funnel}.
   *
   * @throws NullPointerException if {@code funnel} is null
   */
  public static <K> Builder<K> newBuilder(Funnel<? super K> funnel) {
    return new Builder<>(Objects.requireNonNull(funnel, "funnel"));
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
    lookups.increment();
    if (state.mightContain(key)) {
      if (scheduler != null && scheduler.isBackingOff() && state.isPassThrough()) {
        scheduler.requestIfIdle("retry after a failed rebuild");
      }
      return true;
    }
    definiteMisses.increment();
    return false;
  }

  /**
   * Reports that {@code key} answered "might contain" but turned out absent at the source; feeds
   * {@link GuardStats#observedFpp()} and the drift trigger. Ignored while pass-through is on,
   * since those answers say nothing about the filter.
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
        scheduler.requestIfIdle("observed fpp " + (double) fp / negatives + " over " + negatives
            + " negatives exceeds the drift limit " + driftLimit);
      }
    }
  }

  // ---- mutations ----

  /**
   * The key entered the tracked set: stores exactly one fingerprint for it. Call before the key
   * becomes visible at the source, once per entry (not on a replace). Never fails for a full
   * filter: the guard switches to pass-through and, with a {@link KeySource}, rebuilds.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void keyEntered(K key) {
    Objects.requireNonNull(key, "key");
    if (scheduler != null && !scheduler.isBusy()) {
      // Requested before the add: an executor that runs the rebuild on this thread then finishes
      // it before the key is added, so the add reaches the new filter.
      String growth = state.growth(loadThreshold);
      if (growth != null) {
        scheduler.requestIfIdle(growth);
      }
    }
    boolean wasPassThrough = state.isPassThrough();
    String failure = state.enter(key);
    if (failure != null && scheduler != null) {
      scheduler.requestIfIdle(failure);
    } else if (failure != null && !wasPassThrough) {
      LOGGER.log(Level.WARNING, "Cuckoo guard '" + name + "': " + failure + "; without a KeySource pass-through"
          + " stays on for good");
    }
  }

  /**
   * The key left the tracked set: removes its one fingerprint. Call after the key is gone from the
   * source, and only if its {@link #keyEntered} happened (an unpaired remove can take another
   * key's fingerprint and make that key a false negative).
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void keyLeft(K key) {
    state.leave(Objects.requireNonNull(key, "key"));
  }

  /**
   * The tracked set may have changed without {@link #keyEntered}/{@link #keyLeft} calls (a cache
   * cleared without events, a bulk SQL statement, a missed event): switches pass-through on and,
   * with a {@link KeySource}, requests a rebuild. A rebuild already running when this is called
   * does not switch pass-through off; the follow-up does. Without a key source pass-through stays
   * on for good.
   *
   * <p>Order matters: a rebuild clears pass-through only if it started after the last call, and
   * it can only see what is visible at the source when it scans. So call this once the change is
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
      LOGGER.log(Level.WARNING, "Cuckoo guard '" + name + "' marked stale (" + reason + "); without a KeySource"
          + " pass-through stays on for good");
      return;
    }
    LOGGER.log(Level.INFO, () -> "Cuckoo guard '" + name + "' marked stale (" + reason + "); rebuilding");
    scheduler.request("marked stale: " + reason);
  }

  /** Whether {@link #mightContain} currently answers true for every key. */
  public boolean isPassThrough() {
    return state.isPassThrough();
  }

  // ---- rebuild ----

  /**
   * Rebuilds the filter from the {@link KeySource} now, or right after the rebuild that is
   * running.
   *
   * @return completes when a rebuild that started after this call swapped in its filter, or
   *     exceptionally with its failure; without a key source, a future already failed with an
   *     {@link IllegalStateException}
   */
  public CompletableFuture<Void> rebuild() {
    if (scheduler == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("Cuckoo guard '" + name
          + "': rebuild() needs a KeySource to read the tracked keys from; build the guard with"
          + " CuckooGuard.newBuilder(funnel).keySource(source)"));
    }
    return scheduler.request("requested");
  }

  private void rebuildOnce(String reason) throws Exception {
    long start = System.nanoTime();
    listeners.started(reason);
    RebuildState<K> r = null;
    try {
      r = state.install(spec.rebuilt(funnel, state.current().approximateElementCount()));
      RebuildState<K> scan = r;
      Objects.requireNonNull(keySource).forEachKey(key -> {
        long n = scan.scanned(key);
        if (n % PROGRESS_INTERVAL == 0) {
          listeners.progress(n);
        }
      });
      scan.closeScan();
      state.swap(scan);
    } catch (Throwable t) {
      Throwable cause = r != null && r.failure() != null ? r.failure() : t;
      state.abandon(r, cause);
      lastRebuildFailure = cause;
      listeners.failed(cause);
      throw t;
    }
    driftBaseMisses = definiteMisses.sum();
    driftBaseFalsePositives = falsePositives.sum();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    lastRebuildDuration = took;
    lastRebuildFailure = null;
    rebuilds.incrementAndGet();
    listeners.finished(stats(), r.keysScanned(), took);
  }

  private void rejected(String reason, RejectedExecutionException e) {
    RejectedExecutionException cause = new RejectedExecutionException("the executor rejected the rebuild ("
        + reason + ")", e);
    state.abandon(null, cause);
    lastRebuildFailure = cause;
    listeners.failed(cause);
  }

  // ---- stats ----

  /** A snapshot of the counters and of the current filter; lock-free. */
  public GuardStats stats() {
    long fp = falsePositives.sum();
    long misses = definiteMisses.sum();
    CuckooFilter<K> current = state.current();
    return new GuardStats(lookups.sum(), misses, fp, fp + misses == 0 ? Double.NaN : (double) fp / (fp + misses),
        current.approximateElementCount(), current.loadFactor(), state.bytes(), rebuilds.get(), lastRebuildDuration,
        lastRebuildFailure, state.isPassThrough(),
        state.rebuilding() != null || (scheduler != null && scheduler.isPending()));
  }

  @Override
  public String toString() {
    return "CuckooGuard[" + name + ", " + stats() + "]";
  }

  /**
   * Builds {@link CuckooGuard}s. Each setter checks its value at once and may be called only once
   * ({@link #addListener} any number of times); messages name the bad value and the accepted
   * range. Filter settings have the meaning and defaults of {@link AbstractFilterBuilder}. Not
   * thread-safe.
   *
   * @param <K> the key type
   */
  public static final class Builder<K> {
    private final Funnel<? super K> funnel;
    /** Validates the filter settings with the filter builder's own checks and messages. */
    private final CuckooFilter.Builder<K> probe;
    private long expectedInsertions = -1;
    private double fpp = -1;
    private int fingerprintBits = -1;
    private int expansion = -1;
    private @Nullable Long seed;
    private @Nullable KeySource<K> keySource;
    private @Nullable Executor executor;
    private double loadThreshold = Double.NaN;
    private double driftFactor = Double.NaN;
    private final List<RebuildListener> listeners = new ArrayList<>();
    private @Nullable String name;

    private Builder(Funnel<? super K> funnel) {
      this.funnel = funnel;
      this.probe = CuckooFilter.newBuilder(funnel);
    }

    /**
     * Tracked keys the guard holds without a rebuild: the first filter (and, at least, every
     * rebuilt one) is sized so that this many keys load it to no more than the
     * {@linkplain #rebuildLoadThreshold rebuild load threshold}, i.e. for {@code expectedInsertions
     * × 0.95 / threshold} keys (× 1.12 at the default threshold; 0.95 is the design load of a
     * filter's 4-slot buckets), never fewer than {@code expectedInsertions}.
     *
     * @see AbstractFilterBuilder#expectedInsertions
     */
    public Builder<K> expectedInsertions(long expectedInsertions) {
      probe.expectedInsertions(expectedInsertions);
      this.expectedInsertions = expectedInsertions;
      return this;
    }

    /**
     * Target false-positive probability, also the base of the drift trigger. Exclusive with
     * {@link #fingerprintBits}.
     *
     * @see AbstractFilterBuilder#fpp
     */
    public Builder<K> fpp(double fpp) {
      probe.fpp(fpp);
      this.fpp = fpp;
      return this;
    }

    /**
     * Fingerprint width instead of {@link #fpp}; the drift trigger then aims at the fpp of a full
     * filter of that width.
     *
     * @see AbstractFilterBuilder#fingerprintBits
     */
    public Builder<K> fingerprintBits(int fingerprintBits) {
      probe.fingerprintBits(fingerprintBits);
      this.fingerprintBits = fingerprintBits;
      return this;
    }

    /**
     * Growth of the first filter when full (default {@value AbstractFilterBuilder#DEFAULT_EXPANSION}).
     * With 0 a full filter makes inserts fail, which switches the guard to pass-through until a
     * rebuild (forever without a key source). Rebuilt filters use at least
     * {@value FilterSpec#REBUILD_EXPANSION}, so that a rebuild cannot run out of room.
     *
     * @see AbstractFilterBuilder#expansion
     */
    public Builder<K> expansion(int expansion) {
      probe.expansion(expansion);
      this.expansion = expansion;
      return this;
    }

    /** Hash seed of every filter of the guard; by default each filter draws a random one. */
    public Builder<K> seed(long seed) {
      probe.seed(seed);
      this.seed = seed;
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
     * Runs rebuilds (default {@link ForkJoinPool#commonPool()}). In production it must not run
     * the task on the calling thread: rebuilds are requested from {@code keyEntered}, which
     * adapters call inside cache locks. {@code Runnable::run} is meant for tests. Ignored without
     * a key source.
     *
     * @throws NullPointerException if {@code executor} is null
     */
    public Builder<K> executor(Executor executor) {
      requireUnset(this.executor == null, "executor", this.executor);
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Load factor above which a rebuild starts (default
     * {@value CuckooGuard#DEFAULT_REBUILD_LOAD_THRESHOLD}). Ignored without a key source.
     *
     * @param threshold in (0, 1]; a 4-slot filter fills to about 0.95, so values above that only
     *     rebuild when the filter had to grow or an insert failed
     */
    public Builder<K> rebuildLoadThreshold(double threshold) {
      requireUnset(Double.isNaN(this.loadThreshold), "rebuildLoadThreshold", this.loadThreshold);
      if (!(threshold > 0 && threshold <= 1)) {
        throw new IllegalArgumentException("rebuildLoadThreshold (" + threshold + ") must be in (0, 1];"
            + " it is the filter load factor above which a rebuild starts");
      }
      this.loadThreshold = threshold;
      return this;
    }

    /**
     * A rebuild starts when the observed fpp exceeds this multiple of the target fpp (default
     * {@value CuckooGuard#DEFAULT_FPP_DRIFT_FACTOR}), counted after at least
     * {@value CuckooGuard#MIN_NEGATIVES_FOR_DRIFT} lookups of absent keys since the last rebuild.
     * Ignored without a key source.
     *
     * @param factor greater than 1; {@link Double#POSITIVE_INFINITY} turns the trigger off
     */
    public Builder<K> fppDriftFactor(double factor) {
      requireUnset(Double.isNaN(this.driftFactor), "fppDriftFactor", this.driftFactor);
      if (!(factor > 1)) {
        throw new IllegalArgumentException("fppDriftFactor (" + factor + ") must be > 1 (a multiple of the"
            + " target fpp); use Double.POSITIVE_INFINITY to turn the drift trigger off");
      }
      this.driftFactor = factor;
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
      return new CuckooGuard<>(this);
    }
  }
}
