package io.github.cuckooguard.internal.guard;

import io.github.cuckooguard.CuckooFilter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The filters of one guard and the switch between them: the current filter ({@code F1}) that
 * lookups read, the filter a rebuild is building ({@code F2}, inside {@link RebuildState}), the
 * exact set of keys whose insert failed, and the pass-through switch.
 *
 * <pre>
 * Locking. F1 and the rebuild in flight change only under the write lock (install, swap,
 * abandon: each O(1) apart from settling the touched keys). enter and leave hold the read lock,
 * so they run concurrently with each other and always see a consistent pair; lookups take no
 * lock. The key source's scan runs with no lock held, so a source that triggers leaves (a cache
 * evicting during cleanUp) cannot deadlock.
 *
 * Swap order. F1 := F2 is written before pass-through is cleared, and lookups read pass-through
 * before the filter, so a lookup that sees pass-through off sees F2.
 *
 * F1 stays exact: it takes every enter's add, and every end (gone, abort) of an incarnation whose
 * add it took. A lookup before the swap reads F1, after it F2 (see RebuildState for why F2 is
 * complete).
 *
 * Transitions. `entering` (beginEnter .. visible/abort) and `leaving` (beginLeave .. gone/cancel)
 * hold the transitions begun and not yet finished, one slot each (InFlight: no allocation; the
 * slot's index goes back to the caller's handle, which passes it to the end). Every begin and
 * every end runs under the read lock and install under the write lock, so install sees exactly
 * the transitions whose end has not run yet, and hands each one a copy in F2
 * (RebuildState.hold); transitions that begin later find the rebuild and hold themselves.
 *
 * Failed inserts (only when rebuilds are possible): the key goes into `overflow`, an exact multiset,
 * and pass-through goes on. The rebuild that follows cannot rely on its scan for such a key: it
 * may install and scan before the caller makes the key visible at the source. So install hands
 * every overflow key to F2 as if it entered during the rebuild, and a leave of an overflow key
 * takes it out of the set instead of F1 (so F1 never takes an unpaired remove). The swap clears
 * the set; a failed rebuild keeps it. Overflow non-empty implies pass-through on. Outside a
 * rebuild the failure is a new reason to go stale; during a rebuild whose F2 took the key, that
 * rebuild covers it and may clear the flag at its swap (holdUntilSwap). Without rebuilds nothing
 * can clear pass-through, so nothing is kept.
 *
 * Snapshot (for a peer to load): a copy of F1 taken under the write lock, so between whole
 * begins and ends: every enter begun so far has added its fingerprint, every leave not yet gone
 * still has its copy, so every transition in flight at the snapshot is in it (and every later one
 * is one the copy does not need: the loader receives it itself, see RebuildState). Refused while
 * pass-through is on (F1 may lack a key then: a failed insert, a reason to go stale).
 *
 * Deferred install (a rebuild whose filter is transferred): as install, without F2; the rebuild
 * counts what its transitions hold and attach adds those copies to the filter it is given, under
 * the write lock (RebuildState).
 * </pre>
 *
 * @param <K> the key type
 */
public final class FilterState<K> {

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final PassThroughSwitch passThrough = new PassThroughSwitch();
  private final boolean rebuildable;

  /** Per key, the inserts into F1 that failed and whose incarnation has not ended. */
  private final ConcurrentHashMap<K, int[]> overflow = new ConcurrentHashMap<>();

  /** Enters begun and not ended (beginEnter .. visible/abort). */
  private final InFlight<K> entering = new InFlight<>();

  /** Leaves begun and not ended (beginLeave .. gone/cancel). */
  private final InFlight<K> leaving = new InFlight<>();

  /** The slot of a transition that is not in flight (keyEntered, keyLeft). */
  public static final int NO_SLOT = Integer.MIN_VALUE;

  /** Set in {@link #enter}'s result when the insert failed (pass-through is on then). */
  public static final long INSERT_FAILED = 1L << 32;

  private volatile CuckooFilter<K> filter;

  /** Bytes of the current filter when it became current; more now means it grew. */
  private volatile long initialBytes;

  private volatile @Nullable RebuildState<K> rebuilding;

  /**
   * @param first the first current filter
   * @param rebuildable whether a key source exists, so that rebuilds can clear pass-through
   */
  public FilterState(CuckooFilter<K> first, boolean rebuildable) {
    this.filter = first;
    this.initialBytes = first.sizeInBytes();
    this.rebuildable = rebuildable;
  }

  /** The filter lookups read. */
  public CuckooFilter<K> current() {
    return filter;
  }

  /** The rebuild in flight, or null. */
  public @Nullable RebuildState<K> rebuilding() {
    return rebuilding;
  }

  public boolean isPassThrough() {
    return passThrough.isOn();
  }

  /** Pass-through, else the current filter. Lock-free. */
  public boolean mightContain(K key) {
    return passThrough.isOn() || filter.mightContain(key);
  }

  /**
   * Begins an enter: adds the key's fingerprint to the current filter and the one being built, and,
   * if {@code inFlight}, records the transition until {@link #endTransition} or {@link #end}.
   *
   * @return in the low 32 bits the transition's slot ({@link #NO_SLOT} if not {@code inFlight}), to
   *     pass to its end; plus {@link #INSERT_FAILED} if the insert failed (pass-through is on then,
   *     see {@link #insertFailure})
   */
  public long enter(K key, boolean inFlight) {
    Lock shared = lock.readLock();
    shared.lock();
    try {
      CuckooFilter<K> current = filter;
      RebuildState<K> r = rebuilding;
      boolean stored = current.add(key);
      boolean inNext =
          r != null && r.hold(key, inFlight ? RebuildState.ENTERING : RebuildState.VISIBLE);
      long slot = (inFlight ? entering.begin(key) : NO_SLOT) & 0xFFFF_FFFFL;
      if (stored) {
        return slot;
      }
      if (rebuildable) {
        overflow.merge(
            key,
            new int[] {1},
            (a, b) -> {
              a[0]++;
              return a;
            });
      }
      if (inNext) {
        passThrough.holdUntilSwap();
      } else {
        passThrough.goStale();
      }
      return slot | INSERT_FAILED;
    } finally {
      shared.unlock();
    }
  }

  /** What an {@link #enter} with {@link #INSERT_FAILED} ran into, for a log line. */
  public String insertFailure() {
    return "an insert failed: the filter is full (" + filter.info() + ")";
  }

  /**
   * Begins a leave: the key is still tracked; a rebuild in flight holds a copy for it.
   *
   * @return the transition's slot, to pass to its end
   */
  public int beginLeave(K key) {
    Lock shared = lock.readLock();
    shared.lock();
    try {
      RebuildState<K> r = rebuilding;
      if (r != null) {
        r.holdForLeave(key);
      }
      return leaving.begin(key);
    } finally {
      shared.unlock();
    }
  }

  /**
   * Ends a transition without ending the incarnation: an enter became visible, or a leave was
   * cancelled (the key stayed). No filter changes.
   *
   * @param enter whether the transition is an enter's
   * @param slot what its begin returned
   */
  public void endTransition(K key, boolean enter, int slot) {
    Lock shared = lock.readLock();
    shared.lock();
    try {
      (enter ? entering : leaving).end(key, slot);
      RebuildState<K> r = rebuilding;
      if (r != null) {
        r.becameVisible(key, enter ? RebuildState.ENTERING : RebuildState.LEAVING);
      }
    } finally {
      shared.unlock();
    }
  }

  /**
   * Ends an incarnation: removes the key's fingerprint from wherever its add went (F1 or the
   * overflow set) and releases a copy held by the rebuild in flight.
   *
   * @param inFlight whether a transition of the key was counted (a leave's or an enter's)
   * @param abortedEnter whether this end is an enter's abort
   * @param slot what the transition's begin returned ({@link #NO_SLOT} if not {@code inFlight})
   */
  public void end(K key, boolean inFlight, boolean abortedEnter, int slot) {
    Lock shared = lock.readLock();
    shared.lock();
    try {
      if (inFlight) {
        (abortedEnter ? entering : leaving).end(key, slot);
      }
      if (overflow.isEmpty() || !takeOverflow(key)) {
        filter.remove(key);
      }
      RebuildState<K> r = rebuilding;
      if (r != null) {
        r.release(
            key,
            !inFlight
                ? RebuildState.VISIBLE
                : abortedEnter ? RebuildState.ENTERING : RebuildState.LEAVING);
      }
    } finally {
      shared.unlock();
    }
  }

  /** Takes one failed insert of {@code key} out of the overflow multiset, if it has one. */
  private boolean takeOverflow(K key) {
    boolean[] taken = new boolean[1];
    overflow.computeIfPresent(
        key,
        (k, c) -> {
          taken[0] = true;
          return --c[0] == 0 ? null : c;
        });
    return taken[0];
  }

  /** Transitions begun and not finished (all keys). */
  public long transitionsInFlight() {
    return entering.count() + leaving.count();
  }

  /**
   * A reason to go stale: pass-through on until a rebuild that starts later succeeds.
   *
   * @return whether this call switched pass-through on
   */
  public boolean markStale() {
    return passThrough.goStale();
  }

  /**
   * Why the current filter should be rebuilt (its load passed {@code threshold}, or it had to
   * grow), or null.
   */
  public @Nullable String growth(double threshold) {
    CuckooFilter<K> current = filter;
    double load = current.loadFactor();
    if (load > threshold) {
      return "load factor " + load + " passed " + threshold;
    }
    long bytes = current.sizeInBytes();
    return bytes > initialBytes
        ? "the filter grew from " + initialBytes + " to " + bytes + " bytes"
        : null;
  }

  /** Starts a rebuild into {@code next}: from now on enters and leaves reach it too. */
  public RebuildState<K> install(CuckooFilter<K> next) {
    return installing(next);
  }

  /**
   * Starts a rebuild whose filter is attached later ({@link #attach}): from now on enters and
   * leaves are counted by it.
   */
  public RebuildState<K> installDeferred() {
    return installing(null);
  }

  /**
   * Attaches {@code target} to the deferred rebuild {@code r} (see {@link RebuildState#attach}).
   *
   * @return false if {@code target} could not take the copies the rebuild holds (drop it)
   */
  public boolean attach(RebuildState<K> r, CuckooFilter<K> target) {
    Lock exclusive = lock.writeLock();
    exclusive.lock();
    try {
      return r.attach(target);
    } finally {
      exclusive.unlock();
    }
  }

  /**
   * A copy of the current filter taken under the write lock, made by {@code copier}; null while
   * pass-through is on.
   */
  public <T> @Nullable T snapshot(Function<CuckooFilter<K>, T> copier) {
    Lock exclusive = lock.writeLock();
    exclusive.lock();
    try {
      return passThrough.isOn() ? null : copier.apply(filter);
    } finally {
      exclusive.unlock();
    }
  }

  private RebuildState<K> installing(@Nullable CuckooFilter<K> next) {
    Lock exclusive = lock.writeLock();
    exclusive.lock();
    try {
      RebuildState<K> r = new RebuildState<>(next, passThrough.epoch());
      for (var e : overflow.entrySet()) {
        for (int i = e.getValue()[0]; i > 0; i--) {
          r.hold(e.getKey(), RebuildState.VISIBLE);
        }
      }
      // One copy per transition in flight; under the write lock no begin or end runs.
      entering.forEach(key -> r.hold(key, RebuildState.ENTERING));
      leaving.forEach(
          key -> {
            r.hold(key, RebuildState.LEAVING);
            r.leaveInFlightAtInstall(key);
          });
      rebuilding = r;
      return r;
    } finally {
      exclusive.unlock();
    }
  }

  /**
   * Settles {@code r} and makes its filter current; clears pass-through unless a reason to go stale
   * arrived since {@code r} was installed. Call after its scan returned.
   *
   * @throws IllegalStateException if {@code r} failed meanwhile (an add to its filter failed)
   */
  public void swap(RebuildState<K> r) {
    Lock exclusive = lock.writeLock();
    exclusive.lock();
    try {
      Throwable failed = r.failure();
      if (failed != null) {
        throw new IllegalStateException("rebuild failed: " + failed.getMessage(), failed);
      }
      r.settle();
      filter = r.next();
      initialBytes = r.next().sizeInBytes();
      rebuilding = null;
      overflow.clear();
      passThrough.clearIfUnchangedSince(r.startEpoch());
    } finally {
      exclusive.unlock();
    }
  }

  /** Drops the rebuild {@code r} (if installed) and switches pass-through on: a failed rebuild. */
  public void abandon(@Nullable RebuildState<K> r, Throwable cause) {
    Lock exclusive = lock.writeLock();
    exclusive.lock();
    try {
      if (r != null) {
        r.fail(cause);
        if (rebuilding == r) {
          rebuilding = null;
        }
      }
      passThrough.goStale();
    } finally {
      exclusive.unlock();
    }
  }

  /** Bytes of fingerprint storage in use: the current filter, plus the one being built. */
  public long bytes() {
    RebuildState<K> r = rebuilding;
    return filter.sizeInBytes() + (r != null && r.hasFilter() ? r.next().sizeInBytes() : 0);
  }
}
