package io.github.cuckooguard.internal.guard;

import io.github.cuckooguard.CuckooFilter;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One rebuild in flight: the filter being built ({@code F2}) and what happened to each key that
 * entered or left while it was built.
 *
 * <pre>
 * Goal: when F2 is swapped in, it holds a copy of the fingerprint of every tracked key, and every
 * remove applied to F2 is paired with an add that F2 received for the same key (an unpaired
 * remove could take another key's copy and make that key a false negative). A key is tracked
 * from its keyEntered call until its keyLeft call; per key these alternate and are serialised by
 * the caller (the set semantics of the guard's contract).
 *
 *   enter(k)   F2.add(k); touched[k].knownLive++       (the guard also adds to F1; keys whose F1
 *                                                      insert failed are handed over this way at
 *                                                      install)
 *   leave(k)   if touched[k].knownLive > 0: F2.remove(k); knownLive--   (paired with that add)
 *              else: nothing                 (the incarnation predates the rebuild: F2 holds
 *                                             a copy only if the scan emitted it)
 *   scan(k)    F2.add(k); if touched has k: touched[k].scanAdds++
 *   settle     for each touched k: remove scanAdds copies from F2
 *
 * Proof. Take a key k tracked at the swap, in its incarnation I.
 * - k not in touched: no event for k during the rebuild, so I was tracked before the rebuild
 *   started and through the whole scan; the KeySource contract makes the scan emit it. Nothing
 *   removes that copy.
 * - k in touched: some event for k happened during the rebuild. If I had been entered before
 *   the rebuild, the only possible event would be I's leave (no enter while tracked), and I is
 *   still tracked; so I entered during the rebuild (or was handed over at install), and F2 got
 *   its add. Leaves with knownLive > 0 are exactly the leaves of such F2-known incarnations
 *   (an incarnation predating the rebuild leaves before any enter of the same key, while
 *   knownLive is 0), so they never outnumber the F2-known incarnations that ended, and I's copy
 *   survives them. Settle removes only copies that known scan adds put there.
 * Every remove is paired: leaves with an enter's add, settle with a scan add of the same key.
 * Keys not tracked at the swap keep zero copies or leak one: a scan add made before the key's
 * touched entry existed is not counted (the key left after the scan emitted it), so it stays, a
 * false positive until the next rebuild, which is safe.
 * </pre>
 *
 * <p>Thread safety: {@link #entered} and {@link #left} run under the guard's read lock,
 * concurrently with each other and with {@link #scanned}; the updates of one key's entry run
 * inside {@link ConcurrentHashMap#compute}, atomic per key. {@link #settle} runs under the guard's
 * write lock after the scan returned.
 *
 * @param <K> the key type
 */
public final class RebuildState<K> {

  private static final class KeyState {
    /** Incarnations whose enter F2 received and whose leave has not come yet. */
    int knownLive;
    /** Scan adds made while this entry existed. */
    int scanAdds;
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

  /** Keys that entered or left during this rebuild. */
  public int touchedKeys() {
    return touched.size();
  }

  /**
   * Records that {@code key} entered the tracked set (the caller adds it to the current filter).
   *
   * @return false if the rebuild has failed (now or before) and its filter does not hold the key
   */
  public boolean entered(K key) {
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
      return state;
    });
    return true;
  }

  /** Records that {@code key} left the tracked set (the caller removes it from the current filter). */
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
    touched.computeIfPresent(key, (k, s) -> {
      s.scanAdds++;
      return s;
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
   * Removes the scan copies of touched keys (see the class comment). Call after the scan
   * returned, holding the guard's write lock.
   *
   * @return the copies removed
   */
  public long settle() {
    long removed = 0;
    for (var e : touched.entrySet()) {
      for (int i = e.getValue().scanAdds; i > 0; i--) {
        if (next.remove(e.getKey())) {
          removed++;
        }
      }
    }
    touched.clear();
    return removed;
  }
}
