package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Policy;
import io.github.cuckooguard.CuckooGuard;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Every write of a guarded cache, each run so that the filter changes atomically with the entry.
 *
 * <pre>
 * Rules (DESIGN.md §2, integrations.md §1):
 *   enter  keyEntered(k) inside the per-key compute that creates the entry, after the user's
 *          function returned a value and before the entry is published. A compute that finds an
 *          expired entry has already evicted it through the eviction listener (keyLeft) and then
 *          sees null, so the new entry enters once.
 *   leave  keyLeft(k) inside the per-key compute that removes the entry (the function returns
 *          null after calling it), only when the function saw a live entry, whose enter happened.
 *          Evictions leave through GuardEvictionListener, also inside the removal.
 *   replace never touches the filter: a live key stays one key. Plain replace() goes straight to
 *          Caffeine, which never creates an entry on replace (an expired entry is not replaced).
 * </pre>
 *
 * Writes that may enter a key run inside {@link #writing} so a rebuild can wait for them
 * ({@link InFlightWrites}). Stand-in computes record what Caffeine's statistics counted for them
 * in {@link SyntheticStats}.
 *
 * <p>Thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardedWrites<K, V> {

  /** A slot a compute function writes its observation into. */
  private static final class Slot<T> {
    @Nullable T value;
    boolean flag;
  }

  private final ConcurrentMap<K, V> map;
  private final Policy<K, V> policy;
  private final CuckooGuard<K> guard;
  private final InFlightWrites inFlight;
  private final SyntheticStats synthetic;

  public GuardedWrites(Cache<K, V> raw, CuckooGuard<K> guard, InFlightWrites inFlight, SyntheticStats synthetic) {
    this.map = raw.asMap();
    this.policy = raw.policy();
    this.guard = guard;
    this.inFlight = inFlight;
    this.synthetic = synthetic;
  }

  public CuckooGuard<K> guard() {
    return guard;
  }

  public SyntheticStats synthetic() {
    return synthetic;
  }

  /** Runs {@code write}, which may call {@code keyEntered}, as a tracked in-flight write. */
  public <R> R writing(Supplier<R> write) {
    int ticket = inFlight.enter();
    try {
      return write.get();
    } finally {
      inFlight.exit(ticket);
    }
  }

  /** Wraps a loading function so that a non-null result enters its key (run inside a compute). */
  public Function<K, @Nullable V> entering(Function<? super K, ? extends @Nullable V> load) {
    return key -> {
      V value = load.apply(key);
      if (value != null) {
        guard.keyEntered(key);
      }
      return value;
    };
  }

  /**
   * Wraps a remapping function so that the entry's creation enters its key and its removal
   * leaves it (run inside a compute).
   */
  public BiFunction<K, @Nullable V, @Nullable V> tracking(
      BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> remap) {
    return (key, old) -> track(key, old, remap.apply(key, old));
  }

  private @Nullable V track(K key, @Nullable V old, @Nullable V next) {
    if (old == null) {
      if (next != null) {
        guard.keyEntered(key);
      }
    } else if (next == null) {
      guard.keyLeft(key);
    }
    return next;
  }

  /**
   * {@code Map.put}: the previous value, or null if the key was absent.
   *
   * @param standIn whether Caffeine's load statistics for the compute are to be taken back (a
   *     put), or kept (the entries of a bulk load)
   */
  public @Nullable V put(K key, V value, boolean standIn) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    Slot<V> previous = new Slot<>();
    writing(() -> map.compute(key, (k, old) -> {
      long start = synthetic.start();
      previous.value = old;
      if (old == null) {
        guard.keyEntered(k);
      }
      if (standIn) {
        synthetic.loaded(start, true);
      }
      return value;
    }));
    return previous.value;
  }

  /** {@code Map.putIfAbsent}: the present value, or null if {@code value} was inserted. */
  public @Nullable V putIfAbsent(K key, V value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    Slot<V> inserted = new Slot<>();
    V current = writing(() -> map.computeIfAbsent(key, k -> {
      long start = synthetic.start();
      synthetic.missed();
      guard.keyEntered(k);
      inserted.flag = true;
      synthetic.loaded(start, true);
      return value;
    }));
    if (inserted.flag) {
      return null;
    }
    synthetic.hit();
    return current;
  }

  /** {@code Map.compute} with the user's function; enters or leaves the key as the entry does. */
  public @Nullable V compute(K key, BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> remap) {
    requireNonNull(key, "key");
    requireNonNull(remap, "remappingFunction");
    return writing(() -> map.compute(key, tracking(remap)));
  }

  /** {@code Map.computeIfPresent}; leaves the key if the function removes the entry. */
  public @Nullable V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends @Nullable V> remap) {
    requireNonNull(key, "key");
    requireNonNull(remap, "remappingFunction");
    // Tracked although it never enters: the user's function may call the guard, and a rebuild it
    // triggers on this thread must see that it runs inside a cache write.
    return writing(() -> map.computeIfPresent(key, (k, old) -> track(k, old, remap.apply(k, old))));
  }

  /** {@code Map.computeIfAbsent}; enters the key if the function creates the entry. */
  public @Nullable V computeIfAbsent(K key, Function<? super K, ? extends @Nullable V> load) {
    requireNonNull(key, "key");
    requireNonNull(load, "mappingFunction");
    return writing(() -> map.computeIfAbsent(key, entering(load)));
  }

  /** {@code Map.merge}, as a compute (Caffeine's merge would insert without a hook). */
  public @Nullable V merge(K key, V value, BiFunction<? super V, ? super V, ? extends @Nullable V> remap) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    requireNonNull(remap, "remappingFunction");
    return writing(() -> map.compute(key, (k, old) -> {
      if (old == null) {
        // Caffeine's own merge records no load when it inserts the given value.
        long start = synthetic.start();
        synthetic.loaded(start, true);
        return track(k, null, value);
      }
      return track(k, old, remap.apply(old, value));
    }));
  }

  /** {@code Map.remove(key)}: removes a live entry and leaves its key; the removed value or null. */
  public @Nullable V remove(Object key) {
    requireNonNull(key, "key");
    @SuppressWarnings("unchecked")
    K k = (K) key;
    Slot<V> removed = new Slot<>();
    map.computeIfPresent(k, (kk, old) -> {
      long start = synthetic.start();
      removed.value = old;
      guard.keyLeft(kk);
      synthetic.loaded(start, false);
      return null;
    });
    return removed.value;
  }

  /**
   * {@code Map.remove(key, value)}. A quiet pre-check keeps a mismatch from touching the entry; a
   * value changed between the check and the lock is returned unchanged by the compute (which
   * then counts as a write for expiry, the only difference from Caffeine's own).
   */
  public boolean remove(Object key, @Nullable Object value) {
    requireNonNull(key, "key");
    if (value == null) {
      return false;
    }
    @SuppressWarnings("unchecked")
    K k = (K) key;
    V current = policy.getIfPresentQuietly(k);
    if (current == null || !value.equals(current)) {
      return false;
    }
    Slot<V> removed = new Slot<>();
    map.computeIfPresent(k, (kk, old) -> {
      long start = synthetic.start();
      boolean matches = value.equals(old);
      synthetic.loaded(start, !matches);
      if (!matches) {
        return old;
      }
      guard.keyLeft(kk);
      removed.flag = true;
      return null;
    });
    return removed.flag;
  }

  /** {@code Map.replace(key, value)}: never creates an entry, so it goes straight to Caffeine. */
  public @Nullable V replace(K key, V value) {
    return map.replace(key, value);
  }

  /** {@code Map.replace(key, oldValue, newValue)}: never creates an entry. */
  public boolean replace(K key, V oldValue, V newValue) {
    return map.replace(key, oldValue, newValue);
  }

  /** {@code Map.replaceAll}: a per-key computeIfPresent that may not remove. */
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    requireNonNull(function, "function");
    for (K key : map.keySet()) {
      writing(() -> map.computeIfPresent(key, (k, old) -> {
        long start = synthetic.start();
        V next = requireNonNull(function.apply(k, old), "replaceAll function returned null");
        synthetic.loaded(start, true);
        return next;
      }));
    }
  }

  /**
   * Removes every entry, one key at a time through {@link #remove(Object)}; never "reset the
   * filter and clear", which would lose keys written in between.
   */
  public void clear() {
    for (K key : map.keySet()) {
      remove(key);
    }
  }
}
