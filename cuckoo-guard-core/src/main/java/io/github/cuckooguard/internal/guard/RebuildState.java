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
 * transitions that the guard keeps itself (FilterState.entering, .leaving): "entering" from beginEnter to
 * visible()/abort(), "leaving" from beginLeave to gone()/cancel(). Outside a transition a tracked
 * incarnation is visible at the source (the adapter's half of the protocol: begin before the key
 * becomes visible or before it is removed, end after). The scan emits every key visible at the
 * source for the whole scan, and every tracked key the source hides from its iterator.
 *
 * Goal: when F2 is swapped in, for every key k, F2 holds at least as many copies of k's
 * fingerprint as k has tracked incarnations, and every later end of such an incarnation removes
 * a copy F2 holds for k (an unpaired remove could take a colliding key's copy: a false negative).
 *
 *   hold(k, kind)     F2.add(k); held[k][kind]++
 *       ENTERING: an enter that begins during the rebuild, or is in flight at install
 *       LEAVING:  a leave that begins during the rebuild, or is in flight at install; a leave
 *                 that begins during the rebuild takes over a VISIBLE copy if there is one (the
 *                 visible incarnation is the one leaving) instead of adding a copy
 *       VISIBLE:  a keyEntered during the rebuild; a key whose F1 insert failed (at install)
 *   becameVisible     an enter's visible() moves its copy ENTERING -> VISIBLE; a leave's
 *                     cancel() moves LEAVING -> VISIBLE (the incarnation stays, so does its copy)
 *   release(k, kind)  if held[k][kind] > 0: F2.remove(k); held[k][kind]--
 *       ENTERING: abort()   LEAVING: gone()   VISIBLE: keyLeft (inside the atomic removal)
 *   scan(k)           F2.add(k); if k has an entry: scanAdds[k]++
 *   settle            for each k with an entry, unless an enter of k aborted during the rebuild
 *                     or is still in flight, or a leave of k was in flight at install: remove
 *                     scanAdds[k] copies from F2
 *
 * A copy held for a kind belongs to an incarnation of that kind, and a release takes a copy only
 * from the kind of the incarnation that ends, so one incarnation's end never takes the copy of
 * another that is still tracked (a duplicate enter in flight keeps its copy when the visible
 * incarnation leaves, and the other way round).
 *
 * Proof. Fix a key k at the swap. F2's copies of k are S (scan) + H (holds) - R (releases).
 * (1) Every release belongs to an incarnation that ends, and takes a copy held for that
 *     incarnation's kind: an abort or a gone() ends a transition that was in flight at install
 *     (install and every end are mutually exclusive, so install saw it) or began after install,
 *     so it holds a copy of its own; a keyLeft ends the visible incarnation, and VISIBLE copies
 *     belong to visible incarnations (with set semantics there is one). So R <= holds of ended
 *     incarnations.
 * (2) A tracked incarnation I at the swap either had a transition in flight at some moment of the
 *     rebuild, and then holds a copy of its own that no release of another incarnation took (1);
 *     or had none, so it was tracked and visible (or hidden but tracked) for the whole rebuild and
 *     the scan emitted it. At most one incarnation is visible at the source at a time, so
 *     S >= the number of such I.
 * Hence, before settle, F2's copies >= tracked incarnations of k.
 * (3) Settle. Scan copies counted for k were added after k's entry existed. A tracked incarnation
 *     that the settle could leave without a copy would be one of case (2b): visible and without a
 *     transition for the whole rebuild while another incarnation of k had one. With set semantics
 *     that other transition is an enter of a key that was already visible (a duplicate insert,
 *     which fails and is aborted, or is still undecided at the swap), or a leave in flight at
 *     install, whose removal may have happened before the rebuild and been followed by a new
 *     incarnation that became visible before install (a transactional store: the delete commits,
 *     another transaction inserts the key again and commits, and only then does the delete's
 *     after-commit gone() run). A leave begun after install issues its removal during the
 *     rebuild, so no incarnation is visible throughout. Settle skips exactly those keys (aborted
 *     or undecided enters, leaves in flight at install), so it only removes copies that holds
 *     duplicate.
 * After the swap the guard removes from F2 only at an end of an incarnation tracked at the swap
 * (ends before the swap released into F2 or were applied to F1 alone), and each such end is
 * matched by a copy counted above.
 * Exactness: a key that changes during a rebuild keeps a spare copy only if its scan copy was
 * added before its first transition, an enter of it was aborted or is undecided at the swap, or a
 * leave of it was in flight at install (a false positive until the next rebuild). A rebuild during which no key changes ("quiet")
 * holds exactly one copy per key.
 *
 * Rebuild from a transferred filter (a peer's snapshot, loaded from its dump). Installed without a
 * filter ("deferred"): hold, holdForLeave, release and becameVisible change only the per-key
 * counts, exactly as they would with F2 present, so that Σ held[k][*] equals the copies of k the
 * transitions would have put into F2 (each hold adds one, holdForLeave adds one unless it takes
 * over a VISIBLE one, a release takes one only if one is counted). attach(L) runs under the write
 * lock (no hold or release runs): F2 := L plus, for every key, Σ held[k][*] copies; from then on
 * transitions reach F2 directly. There is no scan, so settle removes nothing (a key in L that also
 * holds a copy keeps both: a false positive).
 * The proof above carries over with L in the scan's place. (1) is unchanged. (2): an incarnation
 * with a transition in flight at some moment of the rebuild holds a copy of its own in the counts,
 * hence in F2; one without was visible at the source for the whole rebuild, from install to the
 * swap, so it is in L provided L holds every key visible at the source at some instant after
 * install. That is the transfer's obligation. A group engine meets it so: the joiner is
 * subscribed (every writer delivers its begins to it, or waits until it can no longer answer
 * "absent") before it installs, it asks the peer for the snapshot only after install, and the
 * peer takes the snapshot under its own write lock (every begun enter has added, every leave not
 * yet gone still holds its copy) while it holds a fresh lease with a complete filter, which is
 * the state in which it contains every visible key. (3): nothing is settled. So no present key is
 * missing from F2: it is in the peer's snapshot, or its enter reached the joiner after the joiner
 * subscribed and is counted (kept and applied), and the joiner subscribes before the peer
 * snapshots.
 * </pre>
 *
 * <p>Thread safety: {@link #hold} and {@link #release} run under the guard's read lock,
 * concurrently with each other and with {@link #scanned}; the count of one key changes inside
 * {@link ConcurrentHashMap#compute}, atomic per key. Install and swap run under the write lock.
 *
 * @param <K> the key type
 */
public final class RebuildState<K> {

  /** Held copies of an enter in flight (from its begin, or install, to visible or abort). */
  public static final int ENTERING = 0;

  /**
   * Held copies of a visible incarnation (an enter that became visible, a cancelled leave, a key
   * whose F1 insert failed).
   */
  public static final int VISIBLE = 1;

  /** Held copies of a leave in flight (from its begin, or install, to gone or cancel). */
  public static final int LEAVING = 2;

  private static final class KeyState {
    /** Copies F2 holds for this key, by the kind of incarnation they belong to. */
    final int[] held = new int[3];

    /** Whether an enter of this key was aborted during the rebuild. */
    boolean aborted;

    /** Scan adds made while this entry existed. */
    int scanAdds;

    /**
     * Whether a leave of this key was in flight at install (its removal may precede the rebuild).
     */
    boolean leaveAtInstall;
  }

  /** Thrown into the key source to stop a scan that can no longer succeed. */
  static final class Aborted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Aborted(Throwable cause) {
      super("rebuild aborted: " + cause.getMessage(), cause, false, false);
    }
  }

  /** F2; null while a deferred rebuild waits for its transferred filter (see attach). */
  private volatile @Nullable CuckooFilter<K> next;

  private final long startEpoch;
  private final ConcurrentHashMap<K, KeyState> touched = new ConcurrentHashMap<>();
  private final AtomicLong keysScanned = new AtomicLong();
  private volatile @Nullable Throwable failure;
  private volatile boolean scanClosed;

  /**
   * @param next the filter to build, or null for a deferred rebuild (see {@link #attach})
   */
  public RebuildState(@Nullable CuckooFilter<K> next, long startEpoch) {
    this.next = next;
    this.startEpoch = startEpoch;
  }

  /**
   * The filter being built.
   *
   * @throws IllegalStateException if this deferred rebuild has no filter yet
   */
  public CuckooFilter<K> next() {
    CuckooFilter<K> f = next;
    if (f == null) {
      throw new IllegalStateException("no filter attached to this rebuild yet");
    }
    return f;
  }

  /** Whether this rebuild has its filter (always, unless deferred and not attached yet). */
  public boolean hasFilter() {
    return next != null;
  }

  /**
   * Makes {@code target} this deferred rebuild's filter: adds, for every key, the copies its
   * transitions hold (see the class comment). Call holding the guard's write lock. If an add fails
   * (the target is full and cannot grow) nothing is attached and the target must be dropped; the
   * counts are unchanged, so another filter can be attached instead.
   *
   * @return whether {@code target} is now this rebuild's filter
   * @throws IllegalStateException if a filter is attached already
   */
  public boolean attach(CuckooFilter<K> target) {
    if (next != null) {
      throw new IllegalStateException("a filter is attached to this rebuild already");
    }
    for (var e : touched.entrySet()) {
      int[] held = e.getValue().held;
      for (int i = held[ENTERING] + held[VISIBLE] + held[LEAVING]; i > 0; i--) {
        if (!target.add(e.getKey())) {
          return false;
        }
      }
    }
    next = target;
    return true;
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
   * Gives F2 a copy of {@code key}'s fingerprint on behalf of an incarnation of the given kind
   * ({@link #ENTERING}, {@link #VISIBLE} or {@link #LEAVING}; see the class comment).
   *
   * @return false if the rebuild has failed (now or before) and its filter does not hold the key
   */
  public boolean hold(K key, int kind) {
    if (failure != null) {
      return false;
    }
    CuckooFilter<K> f = next;
    if (f != null && !f.add(key)) {
      fail(
          new IllegalStateException(
              "the filter being rebuilt is full (" + f.info() + "); it could not grow further"));
      return false;
    }
    touched.compute(
        key,
        (k, s) -> {
          KeyState state = s == null ? new KeyState() : s;
          state.held[kind]++;
          return state;
        });
    return true;
  }

  /**
   * A leave of {@code key} begins during the rebuild. The leaving incarnation is the visible one:
   * if a copy is held for a visible incarnation, the leave takes that copy over (VISIBLE to
   * LEAVING); otherwise (the incarnation predates the rebuild) F2 gets a new copy for it.
   *
   * <p>(A failed add fails the rebuild, which is then not swapped in.)
   */
  public void holdForLeave(K key) {
    if (failure != null) {
      return;
    }
    touched.compute(
        key,
        (k, s) -> {
          KeyState state = s == null ? new KeyState() : s;
          CuckooFilter<K> f = next;
          if (state.held[VISIBLE] > 0) {
            state.held[VISIBLE]--;
          } else if (f != null && !f.add(k)) {
            fail(
                new IllegalStateException(
                    "the filter being rebuilt is full ("
                        + f.info()
                        + "); it could not grow further"));
            return state;
          }
          state.held[LEAVING]++;
          return state;
        });
  }

  /**
   * Marks that a leave of {@code key} was in flight when this rebuild was installed: the key's
   * removal may have happened before the rebuild and been followed by a new incarnation that was
   * already visible at install, so settle keeps the key's scan copies. Call after its hold.
   */
  public void leaveInFlightAtInstall(K key) {
    touched.computeIfPresent(
        key,
        (k, state) -> {
          state.leaveAtInstall = true;
          return state;
        });
  }

  /**
   * An incarnation of {@code key} ended: its enter was aborted ({@link #ENTERING}), its announced
   * leave is gone ({@link #LEAVING}), or a visible incarnation left in one call inside the atomic
   * removal ({@link #VISIBLE}, {@code keyLeft}). Takes back one copy held for that kind, if any;
   * creates the key's entry either way, so that scan copies from now on are counted.
   */
  public void release(K key, int kind) {
    if (failure != null) {
      return;
    }
    touched.compute(
        key,
        (k, s) -> {
          KeyState state = s == null ? new KeyState() : s;
          if (kind == ENTERING) {
            state.aborted = true;
          }
          if (state.held[kind] > 0) {
            state.held[kind]--;
            CuckooFilter<K> f = next;
            if (f != null) {
              f.remove(k);
            }
          }
          return state;
        });
  }

  /**
   * A transition of {@code key} ended without ending its incarnation: an enter became visible
   * ({@link #ENTERING}) or a leave was cancelled ({@link #LEAVING}). Its held copy, if any, now
   * belongs to a visible incarnation.
   */
  public void becameVisible(K key, int from) {
    touched.computeIfPresent(
        key,
        (k, state) -> {
          if (state.held[from] > 0) {
            state.held[from]--;
            state.held[VISIBLE]++;
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
    CuckooFilter<K> target = next();
    if (!target.add(key)) {
      Throwable full =
          new IllegalStateException(
              "the filter being rebuilt is full ("
                  + target.info()
                  + "); it could not grow further");
      fail(full);
      throw new Aborted(full);
    }
    touched.computeIfPresent(
        key,
        (k, state) -> {
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
    CuckooFilter<K> f = next();
    for (var e : touched.entrySet()) {
      KeyState state = e.getValue();
      if (state.aborted || state.held[ENTERING] > 0 || state.leaveAtInstall) {
        continue; // an enter that may have been a duplicate of a visible key: keep the scan copies
      }
      for (int i = state.scanAdds; i > 0; i--) {
        if (f.remove(e.getKey())) {
          removed++;
        }
      }
    }
    touched.clear();
    return removed;
  }
}
