package io.github.cuckooguard;

import java.util.Objects;

/**
 * A leave of one key that has been announced ({@link CuckooGuard#beginLeave}) before the key is
 * removed at the source: the key stays tracked, and its fingerprint stays in the filter (and in any
 * filter a rebuild builds meanwhile), until {@link #gone()}.
 *
 * <p>Use it where the removal becomes final some time after it is issued, e.g. a delete that
 * becomes visible at commit:
 *
 * <pre>{@code
 * PendingLeave<Long> leave = guard.beginLeave(id);   // before the DELETE is issued
 * // ... commit succeeded:   leave.gone();
 * // ... rolled back:        leave.cancel();   (or close())
 * }</pre>
 *
 * <p>Exactly one of {@link #gone()} and {@link #cancel()} takes effect; {@link #close()} cancels
 * unless one of them was called. Cancelling a leave whose key did go leaves one spare fingerprint
 * (a false positive until the next rebuild), never a false negative. Not thread-safe: one thread,
 * or threads that hand it over safely, own a handle.
 *
 * @param <K> the key type
 */
public final class PendingLeave<K> implements AutoCloseable {

  /** {@link #slot} once ended; no begin returns it. */
  private static final int DONE = Integer.MIN_VALUE + 1;

  private final CuckooGuard<K> guard;
  private final K key;

  /**
   * The guard's record of this transition (passed back to it at the end), or {@link #DONE}. One
   * field for both keeps a handle at 24 bytes.
   */
  private int slot;

  PendingLeave(CuckooGuard<K> guard, K key, int slot) {
    this.guard = guard;
    this.key = key;
    this.slot = slot;
  }

  /** The key being removed. */
  public K key() {
    return key;
  }

  /**
   * The key is gone from the source: removes its fingerprint from whichever filter holds it.
   *
   * @throws IllegalStateException if the leave was already completed or cancelled
   */
  public void gone() {
    guard.leaveGone(key, finish("gone()"));
  }

  /**
   * The key stayed at the source (the removal failed or was rolled back): the key stays tracked.
   *
   * @throws IllegalStateException if the leave was already completed or cancelled
   */
  public void cancel() {
    guard.leaveCancelled(key, finish("cancel()"));
  }

  /** Whether {@link #gone()} or {@link #cancel()} was called. */
  public boolean isDone() {
    return slot == DONE;
  }

  /** Cancels the leave unless {@link #gone()} or {@link #cancel()} was called. */
  @Override
  public void close() {
    if (slot != DONE) {
      cancel();
    }
  }

  /** Marks this handle ended; returns its slot. */
  private int finish(String call) {
    int s = slot;
    if (s == DONE) {
      throw new IllegalStateException(
          call
              + " called on a leave of "
              + key
              + " that was already completed"
              + " or cancelled; each PendingLeave ends once");
    }
    slot = DONE;
    return s;
  }

  @Override
  public String toString() {
    return "PendingLeave[" + Objects.toString(key) + (isDone() ? ", done]" : ", in flight]");
  }
}
