package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.CuckooGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * What a guarded cache knows about its delegate's key set: the guard, the in-flight bridge and
 * the rule for removals. The guarded cache asks it; the event listener and the rebuild scan feed it.
 *
 * <pre>
 * mightContain(k) = pending.contains(k) || guard.mightContain(k)     (pending read first)
 *
 * Created(k)            -> guard.keyEntered(k)
 * Removed/Expired(k)    -> guard.keyLeft(k) only while removals are exact, else dropped (a leak)
 * rebuild scan          -> stop exact removals, then emit every key the cache iterator returns
 * </pre>
 *
 * <p>Removals are <em>exact</em> only when the listener was registered inside the configuration
 * the cache was created with, on a provider whose events are local and complete: then each
 * Removed/Expired event pairs with a Created event this tracker processed (JCache fires one per
 * entry that existed, in order per key). After a scan that no longer holds. A scan cannot see an
 * entry that has expired or been evicted but whose event the provider has not delivered yet
 * (Caffeine's JCache publishes eviction and expiry events "quietly", later, on its executor; a
 * Hazelcast member receives other members' events asynchronously), and JCache offers no barrier to
 * wait for such events. Were the late event applied to the rebuilt filter, which never received
 * that key, it would be an unpaired remove, able to take a colliding key's fingerprint. So the
 * first rebuild switches removals off for good: later Removed/Expired events are dropped, their
 * fingerprints leak (false positives only), and the guard's load and fpp-drift triggers rebuild
 * the filter when the leaks add up. A tracker built for a cache it did not create starts with
 * removals off.
 *
 * <p>The switch takes a write lock that a removal holds (shared) from reading the flag until
 * {@code keyLeft} returned, so no removal that read "exact" before the switch reaches the guard
 * after the scan began.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 */
public final class CacheTracker<K> {

  private static final Logger LOGGER = System.getLogger(CacheTracker.class.getName());

  private final CuckooGuard<K> guard;
  private final PendingKeys<K> pending = new PendingKeys<>();
  private final ReentrantReadWriteLock removalLock = new ReentrantReadWriteLock();
  private volatile boolean exactRemovals;
  private final LongAdder droppedRemovals = new LongAdder();
  private volatile @Nullable Iterable<? extends Cache.@Nullable Entry<K, ?>> source;

  /**
   * A tracker whose guard is built by {@code builder}, with this tracker's scan as key source.
   *
   * @param exactRemovals whether removal events are applied (see the class comment)
   */
  public CacheTracker(CuckooGuard.Builder<K> builder, boolean exactRemovals) {
    this.exactRemovals = exactRemovals;
    this.guard = builder.keySource(this::scan).build();
  }

  /** The guard; for statistics, rebuild and pass-through only, never for keyEntered/keyLeft. */
  public CuckooGuard<K> guard() {
    return guard;
  }

  /** Sets the cache the rebuild scan iterates; called once the cache exists. */
  public void attach(Iterable<? extends Cache.@Nullable Entry<K, ?>> cache) {
    this.source = cache;
  }

  /** Whether removal events are applied to the guard. */
  public boolean isTrackingRemovals() {
    return exactRemovals;
  }

  /** Removal events dropped because removals were not exact. */
  public long droppedRemovals() {
    return droppedRemovals.sum();
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

  /** Call before a call that may make {@code key} visible; pair with {@link #endWrite}. */
  public void beginWrite(K key) {
    pending.add(key);
  }

  /** Call after that call returned (or threw); its synchronous events have run by then. */
  public void endWrite(K key) {
    pending.remove(key);
  }

  /**
   * {@code key} became visible through a call that does not wait for synchronous listeners
   * (Caffeine's {@code loadAll} completes before its Created events have run): enters it now,
   * before its in-flight mark ends. The Created event may enter it a second time; that copy leaks
   * (a false positive until the next rebuild), which is safe.
   */
  public void enteredBeforeEvent(K key) {
    guard.keyEntered(key);
  }

  // ---- events ----

  /** A Created event for {@code key}. */
  void created(K key) {
    guard.keyEntered(key);
  }

  /** A Removed or Expired event for {@code key}. */
  void left(K key) {
    if (!exactRemovals) {
      droppedRemovals.increment();
      return;
    }
    Lock shared = removalLock.readLock();
    shared.lock();
    try {
      if (exactRemovals) {
        guard.keyLeft(key);
        return;
      }
    } finally {
      shared.unlock();
    }
    droppedRemovals.increment();
  }

  /** An event could not be applied: the guard may miss a key, so it must stop answering "absent". */
  void eventFailed(String what, Throwable t) {
    LOGGER.log(Level.WARNING, "Cuckoo guard '" + guard.name() + "': " + what + " failed; marking the guard"
        + " stale", t);
    guard.markStale(what + " failed: " + t);
  }

  // ---- rebuild ----

  private void stopExactRemovals() {
    if (!exactRemovals) {
      return;
    }
    Lock exclusive = removalLock.writeLock();
    exclusive.lock();
    try {
      exactRemovals = false;
    } finally {
      exclusive.unlock();
    }
  }

  /**
   * The key source: every key the cache's iterator returns. Iterating a JCache counts as an access
   * of each entry (it may extend access-based expiry and count hits in statistics) and may expire
   * entries on the way, firing Expired events on this thread (Ehcache does; its iterator then
   * returns {@code null} for the entry). Those events are dropped here, since removals stop first,
   * so the scan never calls back into the guard's remove path.
   */
  private void scan(Consumer<? super K> action) {
    stopExactRemovals();
    Iterable<? extends Cache.@Nullable Entry<K, ?>> cache = source;
    if (cache == null) {
      throw new IllegalStateException("the cache of guard '" + guard.name() + "' does not exist yet");
    }
    for (Cache.@Nullable Entry<K, ?> entry : cache) {
      if (entry != null) {
        action.accept(entry.getKey());
      }
    }
  }
}
