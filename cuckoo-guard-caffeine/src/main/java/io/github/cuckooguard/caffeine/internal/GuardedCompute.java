package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The function a guarded compute hands to Caffeine: the user's function plus the guard's half of
 * the write protocol (see {@link GuardedWrites}). One instance per thread and cache is reused for
 * every compute, so a compute allocates nothing of the adapter's; a compute started from inside
 * another one on the same thread gets a fresh instance.
 *
 * <p>Run by Caffeine inside its per-key compute, so for one key it is serialised with every other
 * write and eviction of that key:
 *
 * <ul>
 *   <li>as a mapping function ({@code computeIfAbsent}, {@code get(k, fn)}, loads), it runs only
 *       for an absent key; a non-null value begins an enter;
 *   <li>as a remapping function ({@code compute}, {@code computeIfPresent}, the present half of
 *       {@code merge}), {@code old == null && next != null} begins an enter (Caffeine passes null
 *       for an expired entry after evicting it through the eviction listener), and {@code old !=
 *       null && next == null} leaves the key there, inside the atomic removal ({@code
 *       beginLeave(key).gone()}: Caffeine removes the entry once the function returned null, with
 *       nothing in between that could throw); a replace changes nothing.
 * </ul>
 *
 * The enter begun inside is ended by the caller once Caffeine's call has returned ({@link
 * #published}) or thrown ({@link #failed}).
 *
 * <p>Not thread-safe: owned by one thread from {@link #acquire} to {@link #release}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class GuardedCompute<K, V> {

  /** This instance as Caffeine's mapping function. */
  final Function<K, @Nullable V> mapping = this::load;

  /** This instance as Caffeine's remapping function. */
  final BiFunction<K, @Nullable V, @Nullable V> remapping = this::remap;

  private final CuckooGuard<K> guard;
  private @Nullable Function<? super K, ? extends @Nullable V> load;
  private @Nullable BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> remap;
  private @Nullable BiFunction<? super V, ? super V, ? extends @Nullable V> merge;
  private @Nullable V mergeValue;
  private @Nullable PendingEnter<K> enter;
  private boolean ran;
  private boolean busy;

  GuardedCompute(CuckooGuard<K> guard) {
    this.guard = guard;
  }

  /** {@code this} if it is free, else a fresh instance; owned until {@link #release}. */
  GuardedCompute<K, V> acquire() {
    GuardedCompute<K, V> c = busy ? new GuardedCompute<>(guard) : this;
    c.busy = true;
    return c;
  }

  /** As a mapping function: runs {@code function} for an absent key. */
  GuardedCompute<K, V> loading(Function<? super K, ? extends @Nullable V> function) {
    this.load = function;
    return this;
  }

  /** As a remapping function: runs {@code function} on the current value (or null). */
  GuardedCompute<K, V> remapping(
      BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> function) {
    this.remap = function;
    return this;
  }

  /** As the present half of {@code merge}: {@code function(old, value)}. */
  GuardedCompute<K, V> merging(
      BiFunction<? super V, ? super V, ? extends @Nullable V> function, V value) {
    this.merge = function;
    this.mergeValue = value;
    return this;
  }

  private @Nullable V load(K key) {
    V value = requireNonNull(load).apply(key);
    if (value != null) {
      begin(key);
    }
    return value;
  }

  private @Nullable V remap(K key, @Nullable V old) {
    ran = true;
    BiFunction<? super V, ? super V, ? extends @Nullable V> m = merge;
    V next =
        m != null
            ? m.apply(requireNonNull(old), requireNonNull(mergeValue))
            : requireNonNull(remap).apply(key, old);
    if (old == null) {
      if (next != null) {
        begin(key);
      }
    } else if (next == null) {
      guard.beginLeave(key).gone();
    }
    return next;
  }

  private void begin(K key) {
    if (enter != null) {
      // Caffeine calls the function once per compute; should a future version retry, the
      // earlier value may or may not have been published: keep its fingerprint (never wrong).
      enter.visible();
    }
    enter = guard.beginEnter(key);
  }

  /** Whether the remapping function ran since {@link #acquire}. */
  boolean ran() {
    return ran;
  }

  /**
   * Caffeine's call returned {@code result}. An enter begun inside is visible if the entry was
   * published (the call returned a value), else aborted (the function's value was not stored).
   */
  @Nullable V published(@Nullable V result) {
    PendingEnter<K> e = enter;
    if (e != null) {
      enter = null;
      if (result != null) {
        e.visible();
      } else {
        e.abort();
      }
    }
    return result;
  }

  /**
   * Caffeine's call threw {@code t} after the function may have begun an enter. Caffeine throws an
   * exception only before it publishes an entry (from the function, the weigher or the expiry, all
   * inside the compute, which then stores nothing), so an enter is aborted; after an {@link Error}
   * the outcome is unknown and the fingerprint is kept (at worst a false positive).
   */
  void failed(Throwable t) {
    PendingEnter<K> e = enter;
    if (e != null) {
      enter = null;
      if (t instanceof RuntimeException) {
        e.abort();
      } else {
        e.visible();
      }
    }
  }

  /** Frees this instance for the next compute on this thread, dropping the user's references. */
  void release() {
    PendingEnter<K> e = enter;
    enter = null;
    load = null;
    remap = null;
    merge = null;
    mergeValue = null;
    ran = false;
    busy = false;
    if (e != null) {
      e.visible(); // not ended by published/failed (a caller bug): keeping the fingerprint is
      // never wrong
    }
  }
}
