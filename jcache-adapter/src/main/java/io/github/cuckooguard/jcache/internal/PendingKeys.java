package io.github.cuckooguard.jcache.internal;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keys with a call in flight that may make them visible in the cache before the guard has heard
 * of them: a multiset, because several threads may write the same key at once.
 *
 * <p>Why it exists: JCache fires a synchronous {@code Created} event <em>after</em> the entry was
 * written, and Caffeine's JCache runs even synchronous listeners on its executor once the entry is
 * already visible to other threads ({@code EventDispatcher.awaitSynchronous}). Between those two
 * moments the guard does not know the key yet. A caller therefore {@link #add}s the key before the
 * write and {@link #remove}s it after the write returned, when the synchronous listener has run;
 * a lookup consults this set <em>before</em> the guard. If the set does not hold the key at the
 * moment of that read, no write of it through this cache was in progress, so any such write
 * either had not made the key visible yet or had already returned, and the guard knows it.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 */
public final class PendingKeys<K> {

  private final ConcurrentHashMap<K, Integer> counts = new ConcurrentHashMap<>();

  /**
   * Counts one more call in flight for {@code key}.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public void add(K key) {
    counts.merge(Objects.requireNonNull(key, "key"), 1, Integer::sum);
  }

  /** Counts one call for {@code key} as finished; the key leaves the set with its last call. */
  public void remove(K key) {
    counts.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
  }

  /** Whether a call for {@code key} is in flight. */
  public boolean contains(K key) {
    return !counts.isEmpty() && counts.containsKey(key);
  }

  /** Number of distinct keys in flight. */
  public int size() {
    return counts.size();
  }
}
