package io.github.cuckooguard.jcache.internal;

import java.io.Serializable;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryRemovedListener;
import org.jspecify.annotations.Nullable;

/**
 * The synchronous listener a guarded cache registers on its delegate: Created events enter keys
 * into the guard. It subscribes to nothing else (removals are not learnt from a generic listener,
 * see {@link CacheGuard}), which also spares a distributed provider the traffic. On Caffeine's
 * provider the guard registers {@link #inCompute} instead, which follows removals too; on Ehcache's
 * heap stores {@link EhcacheRemovals} replaces it. It never throws: a failure marks the guard stale
 * (pass-through until rebuilt) and is logged.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardListener<K, V> implements CacheEntryCreatedListener<K, V> {

  private final CacheGuard<K> guard;

  private GuardListener(CacheGuard<K> guard) {
    this.guard = guard;
  }

  /**
   * The listener configuration to register for {@code guard}: synchronous, no old values, no
   * filter.
   */
  public static <K, V> CacheEntryListenerConfiguration<K, V> configuration(CacheGuard<K> guard) {
    return configuration(guard, true);
  }

  /**
   * The listener configuration to register for {@code guard}: no old values, no filter, synchronous
   * or not.
   */
  public static <K, V> CacheEntryListenerConfiguration<K, V> configuration(
      CacheGuard<K> guard, boolean synchronous) {
    return new MutableCacheEntryListenerConfiguration<>(
        new ListenerFactory<>(new GuardListener<K, V>(guard)), null, false, synchronous);
  }

  /**
   * The registration for a provider that evaluates filters inside its atomic write (Caffeine's,
   * {@link CaffeineRemovals}): the filter applies Created events ({@link CacheGuard#created}) and
   * Removed/Expired events ({@link CacheGuard#left}) and returns false, so the listener, which only
   * declares the event types, is never called. Asynchronous: nothing is dispatched anyway.
   */
  public static <K, V> CacheEntryListenerConfiguration<K, V> inCompute(CacheGuard<K> guard) {
    return new MutableCacheEntryListenerConfiguration<>(
        new ListenerFactory<>(new Subscriber<K, V>()),
        new FilterFactory<>(new InComputeFilter<K, V>(guard)),
        false,
        false);
  }

  /** Declares the event types whose filter the guard needs; never called (the filter says no). */
  static final class Subscriber<K, V>
      implements CacheEntryCreatedListener<K, V>,
          CacheEntryRemovedListener<K, V>,
          CacheEntryExpiredListener<K, V> {
    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {}

    @Override
    public void onRemoved(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {}

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {}
  }

  /** Applies an event to the guard where the provider evaluates it; never throws, never passes. */
  static final class InComputeFilter<K, V> implements CacheEntryEventFilter<K, V> {
    private final CacheGuard<K> guard;

    InComputeFilter(CacheGuard<K> guard) {
      this.guard = guard;
    }

    @Override
    public boolean evaluate(CacheEntryEvent<? extends K, ? extends V> event) {
      try {
        switch (event.getEventType()) {
          case CREATED -> guard.created(event.getKey());
          case REMOVED, EXPIRED -> guard.left(event.getKey());
          default -> {}
        }
      } catch (RuntimeException | Error e) {
        guard.failed("a " + event.getEventType() + " event", e);
      }
      return false;
    }
  }

  /**
   * Hands out the filter; a deserialized copy (another process) passes nothing and does nothing.
   */
  static final class FilterFactory<K, V>
      implements Factory<CacheEntryEventFilter<? super K, ? super V>>, Serializable {
    private static final long serialVersionUID = 1L;

    private final transient @Nullable CacheEntryEventFilter<K, V> filter;

    FilterFactory(CacheEntryEventFilter<K, V> filter) {
      this.filter = filter;
    }

    @Override
    public CacheEntryEventFilter<? super K, ? super V> create() {
      CacheEntryEventFilter<K, V> own = filter;
      return own != null ? own : event -> false;
    }
  }

  /** Whether {@code configuration} is one made by {@link #configuration} or {@link #inCompute}. */
  public static boolean isGuardListener(CacheEntryListenerConfiguration<?, ?> configuration) {
    return configuration.getCacheEntryListenerFactory() instanceof ListenerFactory;
  }

  @Override
  public void onCreated(Iterable<CacheEntryEvent<? extends K, ? extends V>> events) {
    try {
      for (CacheEntryEvent<? extends K, ? extends V> event : events) {
        guard.created(event.getKey());
      }
    } catch (RuntimeException | Error e) {
      guard.failed("a Created event", e);
    }
  }

  /** Subscribes to nothing: what a deserialized factory creates in another process. */
  static final class Inert<K, V> implements CacheEntryListener<K, V> {}

  /**
   * Hands out the one listener of its guard. Serializable because some providers ship listener
   * configurations to other processes (Hazelcast copies them into the cluster-wide cache
   * configuration, and a member that later opens the cache instantiates them). The listener is not
   * shipped: a copy creates an {@link Inert} listener that subscribes to no event, so another
   * process never runs this process's guard.
   */
  static final class ListenerFactory<K, V>
      implements Factory<CacheEntryListener<K, V>>, Serializable {
    private static final long serialVersionUID = 1L;

    private final transient @Nullable CacheEntryListener<K, V> listener;

    ListenerFactory(CacheEntryListener<K, V> listener) {
      this.listener = listener;
    }

    @Override
    public CacheEntryListener<K, V> create() {
      CacheEntryListener<K, V> own = listener;
      return own != null ? own : new Inert<>();
    }
  }
}
