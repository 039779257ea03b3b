package io.github.cuckooguard;

import java.util.Objects;

/**
 * An enter of one key that has begun ({@link CuckooGuard#beginEnter}): the key's fingerprint is in
 * the filter and the key is <em>in flight</em> until {@link #visible()} or {@link #abort()}. While
 * it is in flight the guard itself makes sure that a rebuild keeps the fingerprint, so a {@link
 * KeySource} need not know about the key.
 *
 * <p>Use it around the write that makes the key visible at the source:
 *
 * <pre>{@code
 * try (PendingEnter<Long> enter = guard.beginEnter(id)) {
 *   repository.insert(id, row);   // throws: close() aborts the enter
 *   enter.visible();
 * }
 * }</pre>
 *
 * <p>Exactly one of {@link #visible()} and {@link #abort()} takes effect; {@link #close()} aborts
 * unless one of them was called. Call {@link #abort()} only when the key certainly did not become
 * visible: aborting an enter whose key is visible makes that key a false negative. When the outcome
 * is unknown, call {@link #visible()} and {@link CuckooGuard#markStale} instead (slower, never
 * wrong). Not thread-safe: one thread, or threads that hand it over safely, own a handle.
 *
 * @param <K> the key type
 */
public final class PendingEnter<K> implements AutoCloseable {

  /** {@link #slot} once ended; no begin returns it. */
  private static final int DONE = Integer.MIN_VALUE + 1;

  private final CuckooGuard<K> guard;
  private final K key;

  /**
   * The guard's record of this transition (passed back to it at the end), or {@link #DONE}. One
   * field for both keeps a handle at 24 bytes.
   */
  private int slot;

  PendingEnter(CuckooGuard<K> guard, K key, int slot) {
    this.guard = guard;
    this.key = key;
    this.slot = slot;
  }

  /** The key being entered. */
  public K key() {
    return key;
  }

  /**
   * The source now shows the key: the enter is complete and the key is tracked until its leave.
   *
   * @throws IllegalStateException if the enter was already completed or aborted
   */
  public void visible() {
    guard.enterVisible(key, finish("visible()"));
  }

  /**
   * The key did not become visible at the source (the write failed or was rolled back): removes the
   * fingerprint this enter added, paired with it.
   *
   * @throws IllegalStateException if the enter was already completed or aborted
   */
  public void abort() {
    guard.enterAborted(key, finish("abort()"));
  }

  /** Whether {@link #visible()} or {@link #abort()} was called. */
  public boolean isDone() {
    return slot == DONE;
  }

  /** Aborts the enter unless {@link #visible()} or {@link #abort()} was called. */
  @Override
  public void close() {
    if (slot != DONE) {
      abort();
    }
  }

  /** Marks this handle ended; returns its slot. */
  private int finish(String call) {
    int s = slot;
    if (s == DONE) {
      throw new IllegalStateException(
          call
              + " called on an enter of "
              + key
              + " that was already completed"
              + " or aborted; each PendingEnter ends once");
    }
    slot = DONE;
    return s;
  }

  @Override
  public String toString() {
    return "PendingEnter[" + Objects.toString(key) + (isDone() ? ", done]" : ", in flight]");
  }
}
