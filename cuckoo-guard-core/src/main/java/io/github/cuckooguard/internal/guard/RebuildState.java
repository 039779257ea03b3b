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
   * Gives F2 a copy of {@code key}'s fingerprint on behalf of an incarnation of the given kind
   * ({@link #ENTERING}, {@link #VISIBLE} or {@link #LEAVING}; see the class comment).
   *
   * @return false if the rebuild has failed (now or before) and its filter does not hold the key
   */
  public boolean hold(K key, int kind) {
    if (failure != null) {
      return false;
    }
    if (!next.add(key)) {
      fail(
          new IllegalStateException(
              "the filter being rebuilt is full (" + next.info() + "); it could not grow further"));
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
          if (state.held[VISIBLE] > 0) {
            state.held[VISIBLE]--;
          } else if (!next.add(k)) {
            fail(
                new IllegalStateException(
                    "the filter being rebuilt is full ("
                        + next.info()
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
            next.remove(k);
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
    if (!next.add(key)) {
      Throwable full =
          new IllegalStateException(
              "the filter being rebuilt is full (" + next.info() + "); it could not grow further");
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
    for (var e : touched.entrySet()) {
      KeyState state = e.getValue();
      if (state.aborted || state.held[ENTERING] > 0 || state.leaveAtInstall) {
        continue; // an enter that may have been a duplicate of a visible key: keep the scan copies
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
