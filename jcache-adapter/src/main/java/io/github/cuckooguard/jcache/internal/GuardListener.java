package io.github.cuckooguard.jcache.internal;

import java.io.Serializable;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import org.jspecify.annotations.Nullable;

/**
 * The synchronous listener a guarded cache registers on its delegate: Created events enter keys
 * into the guard. It subscribes to nothing else (removals are never learnt from events, see
 * {@link CacheGuard}), which also spares a distributed provider the traffic. It never throws: a failure
 * marks the guard stale (pass-through until rebuilt) and is logged.
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
    return new MutableCacheEntryListenerConfiguration<>(
        new ListenerFactory<>(new GuardListener<K, V>(guard)), null, false, true);
  }

  /** Whether {@code configuration} is one made by {@link #configuration}. */
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
