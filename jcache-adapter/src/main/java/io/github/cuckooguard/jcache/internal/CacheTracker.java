package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * What a guarded cache knows about its delegate's key set: the guard and the in-flight bridge.
 * The guarded cache asks it; the Created listener and the rebuild scan feed it.
 *
 * <pre>
 * mightContain(k) = pending.contains(k) || guard.mightContain(k)     (pending read first)
 *
 * Created(k)         -> guard.keyEntered(k), unless k entered since the last rebuild (see below)
 * Removed/Expired(k) -> not listened to: the fingerprint stays (a leak) until the next rebuild
 * rebuild scan       -> every key the cache iterator returns, then every key with a write in flight
 *                       or whose write ended while the scan ran
 * </pre>
 *
 * <p>Re-entered keys: since no fingerprint is ever removed, a key entered since the last rebuild
 * keeps its fingerprint in the current filter; entering it again each time it is removed and
 * created would only pile copies of one fingerprint into one bucket pair until the filter has to
 * grow (and a rebuild, with a scan of the cache, follows). So the tracker remembers up to
 * {@value #RECENT_LIMIT} keys entered since the last rebuild (forgetting them all when full) and
 * skips those. Never while a rebuild runs: the filter being built has to receive the key unless
 * the scan emits it. A skip just before a rebuild starts is safe: the key is visible to its scan,
 * or its write ends while the scan runs and the scan emits it.
 *
 * <p>Why removals are never applied: a fingerprint may only be removed after its key is gone,
 * and only once per entry this guard entered. JCache providers give no event that is safe for
 * that. Caffeine's JCache dispatches events on its executor, where a Removed or Expired event can
 * run while the removing operation still holds the entry (its listener is called inside the atomic
 * removal); a lookup in that moment would be told "absent" for a key other threads still read.
 * Ehcache 3 can return from a write before that write's synchronous listeners ran, so a removal
 * can be applied while an earlier Created of the same key is still owed. A Hazelcast member
 * receives other members' events asynchronously, and may lose them. And after a rebuild, whose
 * scan cannot see entries that expired or were evicted but whose events are still to come, a late
 * Removed event would take a fingerprint the new filter never received: an unpaired remove, able
 * to erase a colliding key. Dropping removals costs false positives only; the guard's load,
 * growth and fpp-drift triggers rebuild the filter from the cache as they add up.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 */
public final class CacheTracker<K> {

  /** Keys remembered as entered since the last rebuild before the memory is cleared. */
  static final int RECENT_LIMIT = 4096;

  private static final Logger LOGGER = System.getLogger(CacheTracker.class.getName());

  private final CuckooGuard<K> guard;
  private final PendingKeys<K> pending = new PendingKeys<>();
  private final Set<K> recent = ConcurrentHashMap.newKeySet();
  private volatile boolean rebuilding;
  private volatile @Nullable Iterable<? extends Cache.@Nullable Entry<K, ?>> source;

  /** A tracker whose guard is built by {@code builder}, with this tracker's scan as key source. */
  public CacheTracker(CuckooGuard.Builder<K> builder) {
    this.guard = builder.keySource(this::scan).addListener(new RebuildListener() {
      @Override
      public void onStart(String reason) {
        rebuilding = true;
        recent.clear();
      }

      @Override
      public void onFinish(GuardStats stats) {
        recent.clear();
        rebuilding = false;
      }

      @Override
      public void onFailure(Throwable cause) {
        recent.clear();
        rebuilding = false;
      }
    }).build();
  }

  /** The guard; for statistics, rebuild and pass-through only, never for keyEntered/keyLeft. */
  public CuckooGuard<K> guard() {
    return guard;
  }

  /** Sets the cache the rebuild scan iterates; called once the cache exists. */
  public void attach(Iterable<? extends Cache.@Nullable Entry<K, ?>> cache) {
    this.source = cache;
  }

  // ---- lookups ----

  /** False only if {@code key} is definitely not in the cache. */
  public boolean mightContain(K key) {
    return pending.contains(key) || guard.mightContain(key);
  }

  /**
   * The cache said {@code key} is absent after {@link #mightContain} said it might be there:
   * a false positive of the guard, unless a write of the key was in flight.
   */
  public void absentAfterMaybe(K key) {
    if (!pending.contains(key)) {
      guard.reportFalsePositive(key);
    }
  }

  // ---- the in-flight bridge ----

  /**
   * Call before a call that may make {@code key} visible; pair with {@link #endWrite}.
   *
   * @return the token to pass to {@link #endWrite}
   */
  public long beginWrite(K key) {
    return pending.begin(key);
  }

  /**
   * Call after that call returned (or threw). A provider that keeps the synchronous-listener
   * contract has run the Created event by now, if there was one. Ehcache does not always: its
   * ordered dispatch lets a thread mark another thread's event as fired before firing it
   * ({@code InvocationScopedEventSink.fireWaiters}), so that thread's write returns first; and
   * Caffeine's {@code loadAll} completes before its events ran. So if no Created event for the key
   * was processed during the call and the guard does not know the key, the cache is asked, and a
   * present key is entered now, before its in-flight mark ends (the late event then enters it a
   * second time: a leaked copy, never a false negative).
   *
   * @param present asks the cache whether it holds the key; called only in that case
   */
  public void endWrite(K key, long token, Predicate<? super K> present) {
    try {
      if (!pending.eventSince(key, token) && !guard.mightContain(key) && present.test(key)) {
        guard.keyEntered(key);
      }
    } catch (RuntimeException e) {
      eventFailed("checking a write whose Created event had not run", e);
    } finally {
      pending.end(key);
    }
  }

  // ---- events ----

  /** A Created event for {@code key}: enters it, then tells a call in flight that it ran. */
  void created(K key) {
    if (rebuilding || !recent.contains(key)) {
      guard.keyEntered(key);
      if (!rebuilding) {
        if (recent.size() >= RECENT_LIMIT) {
          recent.clear();
        }
        recent.add(key);
      }
    }
    pending.event(key);
  }

  /** An event could not be applied: the guard may miss a key, so it must stop answering "absent". */
  void eventFailed(String what, Throwable t) {
    LOGGER.log(Level.WARNING, "Cuckoo guard '" + guard.name() + "': " + what + " failed; marking the guard"
        + " stale", t);
    guard.markStale(what + " failed: " + t);
  }

  // ---- rebuild ----

  /**
   * The key source: every key the cache's iterator returns, then every key with a write in flight
   * or whose write ended during the iteration (its entry may have become visible after the iterator
   * passed it). Iterating a JCache counts as an access of each entry (it may extend access-based
   * expiry and count hits in statistics), and may expire entries on the way (Ehcache does, and its
   * iterator then returns {@code null} for the entry); the resulting Expired events concern no
   * listener of the guard.
   */
  private void scan(Consumer<? super K> action) {
    Iterable<? extends Cache.@Nullable Entry<K, ?>> cache = source;
    if (cache == null) {
      throw new IllegalStateException("the cache of guard '" + guard.name() + "' does not exist yet");
    }
    pending.startScan();
    try {
      for (Cache.@Nullable Entry<K, ?> entry : cache) {
        if (entry != null) {
          action.accept(entry.getKey());
        }
      }
    } catch (RuntimeException | Error e) {
      pending.abortScan();
      throw e;
    }
    pending.endScan(action);
  }
}
