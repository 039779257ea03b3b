package io.github.cuckooguard.internal.guard;

import io.github.cuckooguard.CuckooFilter;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One rebuild in flight: the filter being built ({@code F2}) and the copies it holds on behalf of
 * keys whose transitions it saw.
 *
 * <pre>
 * Terms. A key's incarnation is tracked from its enter's begin (the fingerprint is added to F1)
 * until its end: the leave's gone(), or the enter's abort(). Between them it passes through
 * transitions that the guard keeps itself (FilterState.inFlight): "entering" from beginEnter to
 * visible()/abort(), "leaving" from beginLeave to gone()/cancel(). Outside a transition a tracked
 * incarnation is visible at the source (the adapter's half of the protocol: begin before the key
 * becomes visible or before it is removed, end after). The scan emits every key visible at the
 * source for the whole scan, and every tracked key the source hides from its iterator.
 *
 * Goal: when F2 is swapped in, for every key k, F2 holds at least as many copies of k's
 * fingerprint as k has tracked incarnations, and every later end of such an incarnation removes
 * a copy F2 holds for k (an unpaired remove could take a colliding key's copy: a false negative).
 *
 *   hold(k)     F2.add(k); knownLive[k]++     for: every transition in flight at install (one per
 *                                             transition, and every key whose F1 insert failed),
 *                                             and every transition that begins during the rebuild
 *   release(k)  if knownLive[k] > 0: F2.remove(k); knownLive[k]--
 *                                             for: every gone()/abort() during the rebuild, and
 *                                             every keyLeft (a leave begun and ended inside the
 *                                             atomic removal; it creates k's entry if absent)
 *   scan(k)     F2.add(k); if k has an entry: scanAdds[k]++
 *   settle      for each k with an entry, unless an enter of k aborted during the rebuild or is
 *               still in flight, or a leave of k (with a handle) was in flight during the
 *               rebuild: remove scanAdds[k] copies from F2
 *
 * Proof. Fix a key k at the swap. F2's copies of k are S (scan) + H (holds) - R (releases).
 * (1) Every release through a handle belongs to an end of a transition that got its own hold: the
 *     transition was in flight at install (install and every end are mutually exclusive, so
 *     install saw it) or began after install (it saw the rebuild). A keyLeft releases only when
 *     knownLive > 0: with set semantics an incarnation that predates the rebuild leaves before
 *     any enter of the same key can hold, so a keyLeft that finds a hold is the leave of an
 *     incarnation that holds. So R <= holds of ended incarnations.
 * (2) A tracked incarnation I at the swap either had a transition in flight at some moment of the
 *     rebuild, and then holds a copy of its own that no release of another incarnation took (1);
 *     or had none, so it was tracked and visible (or hidden but tracked) for the whole rebuild and
 *     the scan emitted it. At most one incarnation is visible at the source at a time, so
 *     S >= the number of such I.
 * Hence, before settle, F2's copies >= tracked incarnations of k.
 * (3) Settle. Scan copies counted for k were added after k's entry existed. A tracked incarnation
 *     that the settle could leave without a copy would be one of case (2b): visible and without a
 *     transition for the whole rebuild while another incarnation of k had one. With set semantics
 *     that other transition is either a leave or an enter of a key that was already visible: a
 *     duplicate insert, which fails and is aborted, or is still undecided at the swap. A leave
 *     with a handle may end (gone) long after its key left the source, e.g. at commit, and the
 *     key may have entered again and become visible meanwhile, before the install: that
 *     incarnation has no transition during the rebuild, and the leave's release takes the hold
 *     the settle would rely on. So settle skips keys whose enter aborted or is undecided, and keys
 *     a leave with a handle was in flight for during the rebuild (at worst a spare copy); it only
 *     removes copies that holds duplicate. (A keyLeft is begun and ended inside the atomic
 *     removal, so no incarnation can appear during it.)
 * After the swap the guard removes from F2 only at an end of an incarnation tracked at the swap
 * (ends before the swap released into F2 or were applied to F1 alone), and each such end is
 * matched by a copy counted above.
 * Exactness: a key that changes during a rebuild keeps a spare copy only if its scan copy was
 * added before its first transition, or an enter of it was aborted or is undecided at the swap
 * (a false positive until the next rebuild). A rebuild during which no key changes ("quiet")
 * holds exactly one copy per key.
 * </pre>
 *
 * <p>Thread safety: {@link #hold} and {@link #release} run under the guard's read lock,
 * concurrently with each other and with {@link #scanned}; the count of one key changes inside
 * {@link ConcurrentHashMap#compute}, atomic per key. Install and swap run under the write lock.
 *
 * @param <K> the key type
 */
public final class RebuildState<K> {

  private static final class KeyState {
    /** Copies F2 holds for this key through holds, not yet released. */
    int knownLive;
    /** Held enters of this key that have not ended (visible or abort) yet. */
    int entersInFlight;
    /** Whether an enter of this key was aborted during the rebuild. */
    boolean aborted;
    /** Scan adds made while this entry existed. */
    int scanAdds;
    /** Whether a leave of this key with a handle was in flight during the rebuild. */
    boolean leaveHeld;
  }

  /** Thrown into the key source to stop a scan that can no longer succeed. */
  static final class Aborted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Aborted(Throwable cause) {
      super("rebuild aborted: " + cause.getMessage(), cause, false, false);
    }
  }

  private final CuckooFilter<K> next;
  private final long startEpoch;
  private final ConcurrentHashMap<K, KeyState> touched = new ConcurrentHashMap<>();
  private final AtomicLong keysScanned = new AtomicLong();
  private volatile @Nullable Throwable failure;
  private volatile boolean scanClosed;

  public RebuildState(CuckooFilter<K> next, long startEpoch) {
    this.next = next;
    this.startEpoch = startEpoch;
  }

  /** The filter being built. */
  public CuckooFilter<K> next() {
    return next;
  }

  /** The pass-through epoch when this rebuild started. */
  public long startEpoch() {
    return startEpoch;
  }

  public long keysScanned() {
    return keysScanned.get();
  }

  /** Keys holding copies in F2 through transitions. */
  public int touchedKeys() {
    return touched.size();
  }

  /**
   * Gives F2 a copy of {@code key}'s fingerprint on behalf of a transition (see the class comment).
   *
   * @return false if the rebuild has failed (now or before) and its filter does not hold the key
   */
  public boolean hold(K key, boolean enter) {
    if (failure != null) {
      return false;
    }
    if (!next.add(key)) {
      fail(new IllegalStateException("the filter being rebuilt is full (" + next.info()
          + "); it could not grow further"));
      return false;
    }
    touched.compute(key, (k, s) -> {
      KeyState state = s == null ? new KeyState() : s;
      state.knownLive++;
      if (enter) {
        state.entersInFlight++;
      }
      return state;
    });
    return true;
  }

  /**
   * {@link #hold} on behalf of a leave with a handle (begun during the rebuild, or in flight at
   * install): its key keeps its scan copies at the settle (see the class comment, (3)).
   *
   * @return false if the rebuild has failed (now or before) and its filter does not hold the key
   */
  public boolean holdLeave(K key) {
    if (!hold(key, false)) {
      return false;
    }
    touched.computeIfPresent(key, (k, state) -> {
      state.leaveHeld = true;
      return state;
    });
    return true;
  }

  /**
   * Takes back one held copy of {@code key}: an incarnation ended (gone, or its enter aborted).
   *
   * @param abortedEnter whether the end is an enter's abort
   */
  public void release(K key, boolean abortedEnter) {
    if (failure != null) {
      return;
    }
    touched.computeIfPresent(key, (k, state) -> {
      if (abortedEnter) {
        state.aborted = true;
        if (state.entersInFlight > 0) {
          state.entersInFlight--;
        }
      }
      if (state.knownLive > 0) {
        state.knownLive--;
        next.remove(k);
      }
      return state;
    });
  }

  /**
   * A leave reported in one call inside the source's atomic removal ({@code keyLeft}): releases a
   * held copy if the key has one (the incarnation entered during the rebuild), else only starts
   * counting the key's scan copies (the incarnation predates the rebuild: F2 holds a copy of it
   * only if the scan emitted it, and that copy is counted only if emitted from now on).
   */
  public void left(K key) {
    if (failure != null) {
      return;
    }
    touched.compute(key, (k, s) -> {
      KeyState state = s == null ? new KeyState() : s;
      if (state.knownLive > 0) {
        state.knownLive--;
        next.remove(k);
      }
      return state;
    });
  }

  /** A held enter of {@code key} ended with the key visible. */
  public void enterVisible(K key) {
    touched.computeIfPresent(key, (k, state) -> {
      if (state.entersInFlight > 0) {
        state.entersInFlight--;
      }
      return state;
    });
  }

  /**
   * Adds a key emitted by the key source.
   *
   * @return the number of keys scanned so far
   * @throws IllegalStateException if called after the scan ended
   * @throws NullPointerException if {@code key} is null
   */
  public long scanned(@Nullable K key) {
    if (scanClosed) {
      throw new IllegalStateException("KeySource emitted a key after forEachKey returned");
    }
    Objects.requireNonNull(key, "KeySource emitted a null key");
    Throwable f = failure;
    if (f != null) {
      throw new Aborted(f);
    }
    if (!next.add(key)) {
      Throwable full = new IllegalStateException("the filter being rebuilt is full (" + next.info()
          + "); it could not grow further");
      fail(full);
      throw new Aborted(full);
    }
    touched.computeIfPresent(key, (k, state) -> {
      state.scanAdds++;
      return state;
    });
    return keysScanned.incrementAndGet();
  }

  /** Ends the scan: later emissions throw. */
  public void closeScan() {
    scanClosed = true;
  }

  /** Marks this rebuild failed; it will not be swapped in. */
  public void fail(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
  }

  /** Why this rebuild failed, or null. */
  public @Nullable Throwable failure() {
    return failure;
  }

  /**
   * Removes the scan copies that held copies make redundant (see the class comment), then forgets
   * the per-key counts. Call after the scan returned, holding the guard's write lock.
   *
   * @return the copies removed
   */
  public long settle() {
    long removed = 0;
    for (var e : touched.entrySet()) {
      KeyState state = e.getValue();
      if (state.aborted || state.entersInFlight > 0 || state.leaveHeld) {
        continue; // a duplicate enter, or a leave that may have ended after the key came back: keep the scan copies
      }
      for (int i = state.scanAdds; i > 0; i--) {
        if (next.remove(e.getKey())) {
          removed++;
        }
      }
    }
    touched.clear();
    return removed;
  }
}
