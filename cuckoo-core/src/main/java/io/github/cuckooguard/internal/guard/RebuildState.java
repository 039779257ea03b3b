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
 * Invariant to keep: when F2 is swapped in, it holds at least one copy of the fingerprint of
 * every tracked key, and every remove applied to F2 is paired with an add F2 received for the
 * same key (an unpaired remove could take another key's copy and make it a false negative).
 *
 *   enter(k)  F2.add(k); touched[k].knownLive++          (the guard also adds to F1)
 *   leave(k)  if touched[k].knownLive > 0: F2.remove(k); knownLive--     (paired with that add)
 *             else touched[k].deferredLeaves++   (the incarnation predates the rebuild: F2 has a
 *                                                  copy only if the scan emitted it)
 *   scan(k)   F2.add(k); if touched has k: touched[k].scanAdds++
 *   settle    for each touched k: remove min(scanAdds, deferredLeaves) copies from F2
 *
 * Per key, enter and leave alternate and are serialised by the caller; the updates of touched[k]
 * run inside ConcurrentHashMap.compute, so they are atomic per key anyway. A scan add that
 * happened before touched[k] existed is not counted, so its matching deferred leave is not
 * applied: that copy leaks (a false positive until the next rebuild), which is safe.
 *
 * Why settle is safe: every key in touched whose incarnation is live at the end entered during
 * the rebuild (a key present before and still present has no events, hence no entry), so F2 has
 * its copy from enter, matched only by removes of incarnations that also entered during the
 * rebuild. A scan copy is removed only against a deferred leave, i.e. only when the incarnation
 * the scan saw (present before the rebuild) has left, and never more often than the scan added.
 * </pre>
 *
 * <p>Thread safety: {@link #entered} and {@link #left} run under the guard's read lock, concurrently
 * with each other and with {@link #scanned}; {@link #settle} runs under its write lock after the
 * scan returned.
 *
 * @param <K> the key type
 */
public final class RebuildState<K> {

  private static final class KeyState {
    int knownLive;
    int deferredLeaves;
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
      } else {
        state.deferredLeaves++;
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
   * Applies the deferred leaves that are paired with a scan add (see the class comment). Call
   * after the scan returned, holding the guard's write lock.
   *
   * @return the copies removed
   */
  public long settle() {
    long removed = 0;
    for (var e : touched.entrySet()) {
      KeyState s = e.getValue();
      for (int i = Math.min(s.scanAdds, s.deferredLeaves); i > 0; i--) {
        if (next.remove(e.getKey())) {
          removed++;
        }
      }
    }
    touched.clear();
    return removed;
  }
}
