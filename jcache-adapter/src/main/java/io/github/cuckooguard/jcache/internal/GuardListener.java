package io.github.cuckooguard.jcache.internal;

import java.io.Serializable;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryRemovedListener;
import org.jspecify.annotations.Nullable;

/**
 * The synchronous listener a guarded cache registers on its delegate: Created events enter keys,
 * Removed and Expired events leave them (as far as the {@link CacheTracker} applies removals). It
 * never throws: a failure marks the guard stale (pass-through until rebuilt) and is logged.
 *
 * <p>Updated events are not needed (a replace is not an enter), so the listener does not subscribe
 * to them. A tracker that never applies removals gets a listener that subscribes to Created only,
 * which spares a distributed provider the traffic.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class GuardListener<K, V> implements CacheEntryCreatedListener<K, V> {

  final CacheTracker<K> tracker;

  GuardListener(CacheTracker<K> tracker) {
    this.tracker = tracker;
  }

  /**
   * The listener configuration to register for {@code tracker}: synchronous, no old values, no
   * filter.
   */
  public static <K, V> CacheEntryListenerConfiguration<K, V> configuration(CacheTracker<K> tracker) {
    GuardListener<K, V> listener = tracker.isTrackingRemovals() ? new WithRemovals<>(tracker) : new GuardListener<>(tracker);
    return new MutableCacheEntryListenerConfiguration<>(new ListenerFactory<>(listener), null, false, true);
  }

  /** Whether {@code configuration} is one made by {@link #configuration}. */
  public static boolean isGuardListener(CacheEntryListenerConfiguration<?, ?> configuration) {
    return configuration.getCacheEntryListenerFactory() instanceof ListenerFactory;
  }

  @Override
  public void onCreated(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {
    try {
      for (CacheEntryEvent<? extends K, ? extends V> event : events) {
        tracker.created(event.getKey());
      }
    } catch (RuntimeException | Error e) {
      tracker.eventFailed("a Created event", e);
    }
  }

  final void leave(Iterable<CacheEntryEvent<? extends K, ? extends V>> events, String what) {
    try {
      for (CacheEntryEvent<? extends K, ? extends V> event : events) {
        tracker.left(event.getKey());
      }
    } catch (RuntimeException | Error e) {
      tracker.eventFailed(what, e);
    }
  }

  /** Also subscribes to Removed and Expired events. */
  static final class WithRemovals<K, V> extends GuardListener<K, V>
      implements CacheEntryRemovedListener<K, V>, CacheEntryExpiredListener<K, V> {

    WithRemovals(CacheTracker<K> tracker) {
      super(tracker);
    }

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {
      leave(events, "a Removed event");
    }

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {
      leave(events, "an Expired event");
    }
  }

  /** Subscribes to nothing: what a deserialized factory creates in another process. */
  static final class Inert<K, V> implements CacheEntryListener<K, V> {}

  /**
   * Hands out the one listener of its tracker. Serializable because some providers ship listener
   * configurations to other processes (Hazelcast copies them into the cluster-wide cache
   * configuration, and a member that later opens the cache instantiates them). The listener is not
   * shipped: a copy creates an {@link Inert} listener that subscribes to no event, so another
   * process never runs this process's guard.
   */
  static final class ListenerFactory<K, V> implements Factory<CacheEntryListener<K, V>>, Serializable {
    private static final long serialVersionUID = 1L;

    private final transient @Nullable GuardListener<K, V> listener;

    ListenerFactory(GuardListener<K, V> listener) {
      this.listener = listener;
    }

    @Override
    public CacheEntryListener<K, V> create() {
      GuardListener<K, V> own = listener;
      return own != null ? own : new Inert<>();
    }
  }
}
