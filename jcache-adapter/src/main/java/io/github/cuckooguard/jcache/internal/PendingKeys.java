package io.github.cuckooguard.jcache.internal;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Keys with a call in flight that may make them visible in the cache before the guard has heard
 * of them, with a count of the entry events the listener processed for each while it was in
 * flight.
 *
 * <p>Why it exists: JCache fires a synchronous {@code Created} event <em>after</em> the entry was
 * written, and Caffeine's JCache runs even synchronous listeners on its executor once the entry is
 * already visible to other threads ({@code EventDispatcher.awaitSynchronous}). Between those two
 * moments the guard does not know the key yet. A caller therefore {@link #begin}s the key before
 * the write and {@link #end}s it after the write returned; a lookup consults this set
 * <em>before</em> the guard. If the set does not hold the key at the moment of that read, no write
 * of it through this cache was in progress, so any such write either had not made the key visible
 * yet or had already ended, and the guard knew it by then (see {@code CacheTracker.endWrite}).
 *
 * <p>The event count lets the caller tell whether the listener saw a Created or Updated event for
 * the key during its call: some providers (Ehcache) can return from a write before its synchronous
 * listeners ran.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 */
public final class PendingKeys<K> {

  private static final class Mark {
    int calls; // changed inside ConcurrentHashMap.compute only
    final AtomicLong events = new AtomicLong();
  }

  private final ConcurrentHashMap<K, Mark> marks = new ConcurrentHashMap<>();
  /** Keys whose call ended while a rebuild scan ran; null outside scans. */
  private volatile @Nullable Set<K> endedDuringScan;

  /**
   * Counts one more call in flight for {@code key}.
   *
   * @return a token for {@link #eventSince}: the key's event count now
   * @throws NullPointerException if {@code key} is null
   */
  public long begin(K key) {
    Mark mark = marks.compute(Objects.requireNonNull(key, "key"), (k, m) -> {
      Mark current = m == null ? new Mark() : m;
      current.calls++;
      return current;
    });
    return mark.events.get();
  }

  /** Whether the listener processed an event for {@code key} since {@link #begin} returned {@code token}. */
  public boolean eventSince(K key, long token) {
    Mark mark = marks.get(key);
    if (mark == null) {
      return false;
    }
    return mark.events.get() != token;
  }

  /**
   * Counts one call for {@code key} as finished; the key leaves the set with its last call. During
   * a scan the key is recorded first, so the scan emits it either way (see {@link #endScan}).
   */
  public void end(K key) {
    Set<K> recording = endedDuringScan;
    if (recording != null) {
      recording.add(key);
    }
    marks.computeIfPresent(key, (k, m) -> --m.calls == 0 ? null : m);
  }

  /** A rebuild scan starts: from now on keys whose calls end are recorded for {@link #endScan}. */
  public void startScan() {
    endedDuringScan = ConcurrentHashMap.newKeySet();
  }

  /**
   * The scan's iteration is over: passes to {@code action} every key with a call in flight and
   * every key whose call ended since {@link #startScan}. Such a key may have become visible only
   * after the iterator passed it (Caffeine's JCache can even run the Created listener before the
   * creating operation completes). Order matters: marks are read before recording stops, and
   * {@link #end} records before it removes the mark, so no key slips between the two.
   */
  public void endScan(Consumer<? super K> action) {
    marks.keySet().forEach(action);
    Set<K> recorded = endedDuringScan;
    endedDuringScan = null;
    if (recorded != null) {
      recorded.forEach(action);
    }
  }

  /** The listener processed a Created or Updated event for {@code key}. */
  public void event(K key) {
    Mark mark = marks.get(key);
    if (mark != null) {
      mark.events.incrementAndGet();
    }
  }

  /** Whether a call for {@code key} is in flight. */
  public boolean contains(K key) {
    return !marks.isEmpty() && marks.containsKey(key);
  }

  /** The scan failed: stops recording. */
  public void abortScan() {
    endedDuringScan = null;
  }

  /** Number of distinct keys in flight. */
  public int size() {
    return marks.size();
  }
}
