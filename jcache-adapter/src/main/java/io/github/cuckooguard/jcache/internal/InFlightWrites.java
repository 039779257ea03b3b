package io.github.cuckooguard.jcache.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs calls that may create entries with their keys in flight ({@link CacheTracker#beginWrite}
 * before, {@link CacheTracker#endWrite} after, also when the call throws).
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 */
public final class InFlightWrites<K> {

  private final CacheTracker<K> tracker;
  private final Predicate<K> presentAtProvider;

  /**
   * @param presentAtProvider asks the cache whether it holds a key; used only when a write ended
   *     without a Created event and the guard does not know the key
   */
  public InFlightWrites(CacheTracker<K> tracker, Predicate<K> presentAtProvider) {
    this.tracker = tracker;
    this.presentAtProvider = presentAtProvider;
  }

  /** Runs {@code call} with {@code key} in flight. */
  public <T> T run(K key, Supplier<T> call) {
    return run(key, call, null);
  }

  /**
   * Runs {@code call} with {@code key} in flight.
   *
   * @param madeVisible tells from the call's result whether it left the key in the cache, which
   *     spares asking the cache when the guard must check; null to ask the cache
   */
  public <T> T run(K key, Supplier<T> call, @Nullable Predicate<? super T> madeVisible) {
    long token = tracker.beginWrite(key);
    T result = null;
    boolean returned = false;
    try {
      result = call.get();
      returned = true;
      return result;
    } finally {
      T outcome = result;
      Predicate<K> present = returned && madeVisible != null ? k -> madeVisible.test(outcome) : presentAtProvider;
      tracker.endWrite(key, token, present);
    }
  }

  /** Runs {@code call} with all of {@code keys} in flight. */
  public <T> T runAll(Collection<? extends K> keys, Supplier<T> call) {
    Batch batch = begin(keys);
    try {
      return call.get();
    } finally {
      batch.end();
    }
  }

  /** Puts {@code keys} in flight until {@link Batch#end()}, for calls that complete elsewhere. */
  public Batch begin(Collection<? extends K> keys) {
    Batch batch = new Batch(keys.size());
    keys.forEach(batch::add);
    return batch;
  }

  /** Keys of a multi-key call in flight, with their tokens. */
  public final class Batch {
    private final List<K> keys;
    private final long[] tokens;

    private Batch(int size) {
      keys = new ArrayList<>(size);
      tokens = new long[size];
    }

    private void add(K key) {
      tokens[keys.size()] = tracker.beginWrite(key);
      keys.add(key);
    }

    /** Ends every key's in-flight mark; call exactly once. */
    public void end() {
      for (int i = 0; i < keys.size(); i++) {
        tracker.endWrite(keys.get(i), tokens[i], presentAtProvider);
      }
    }
  }
}
