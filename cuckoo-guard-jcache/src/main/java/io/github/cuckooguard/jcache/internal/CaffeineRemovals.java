package io.github.cuckooguard.jcache.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import java.io.Serializable;
import java.util.Iterator;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.Factory;
import org.jspecify.annotations.Nullable;

/**
 * Follows every removal of a Caffeine-JCache cache ({@code CacheProxy}) created by the guarded
 * manager, inside Caffeine's atomic removal. The only class of the adapter that links to Caffeine
 * (an optional dependency): it is loaded only once the wrapped provider is known to be Caffeine's
 * ({@link DelegateProviders#isCaffeine}, a class-name check).
 *
 * <pre>
 * Where Caffeine's provider (3.2.x) publishes events    what the guard does there
 *   Created: inside the asMap().compute that creates    CacheGuard.created: counts for the open
 *     the entry (put, putIfAbsent, invoke, loads)         call of the key, else keyEntered
 *   Removed: inside the compute that removes (remove,    keyLeft
 *     getAndRemove, removeAll, invoke remove), and in
 *     Caffeine's eviction listener (size, weight)
 *   Expired: inside the compute that drops an expired    keyLeft
 *     entry (get, containsKey, put over it...), and in
 *     the eviction listener (EXPIRED)
 *   clear(): Caffeine's invalidateAll, no event          markStale (rebuild), as before
 * </pre>
 *
 * <p>The hook: {@code EventDispatcher.publish} evaluates each registration's {@link
 * javax.cache.event.CacheEntryEventFilter} on the publishing thread, before it hands the event to
 * the executor; so a filter runs inside the atomic compute (or eviction) that publishes it,
 * serialised with every other write of the key. The guard's registration ({@link
 * GuardListener#inCompute}) does its work in the filter and returns false, so nothing is dispatched
 * and no executor task is spent on it.
 *
 * <p><b>Why every leave takes a copy its key owns, across rebuilds.</b>
 *
 * <ol>
 *   <li>F1: a removal removes an entry that exists. Its enter came first: a call through the
 *       guarded cache began it before the provider call (so before the entry existed), or its
 *       Created filter entered it inside the creating compute; the removing compute is serialised
 *       after the creating one on the same key. So the keyLeft takes the copy of the removed
 *       entry's incarnation (or of its still-open enter, which then ends visible: a spare copy,
 *       never a missing one).
 *   <li>Rebuilds: keyLeft during a rebuild releases into F2 only a VISIBLE copy F2 holds for the
 *       key (the core's {@code RebuildState}); a copy added by the scan is never taken (a spare at
 *       worst). After the swap a keyLeft removes from F2 the copy of an entry tracked at the swap,
 *       which F2 holds if the scan emitted every entry present for the whole scan
 *       <em>including</em> entries expired but not yet evicted (they are tracked, and their
 *       eviction comes later). The key source ({@link #scanner}) iterates Caffeine's own map
 *       (weakly consistent: every key present throughout is emitted) on a {@link ScanTicker}
 *       rewound for the iterator's steps, so no entry is hidden as expired. Iterating the Caffeine
 *       map, not the JCache iterator, also leaves JCache's access expiry and statistics untouched.
 * </ol>
 *
 * <p><b>What a lookup sees during a removal.</b> The leave is applied inside the compute (or
 * eviction) that removes the entry, so before Caffeine's lock-free reads stop returning it: for the
 * rest of that atomic step the guard answers "absent" while {@code containsKey} or {@code get} on
 * the unwrapped cache still finds the entry. The removal has begun and nothing can keep the entry;
 * every read through the guarded cache asks the guard first and so sees it removed from the leave
 * on, and a re-creation begins its enter before its compute, which runs after the removing one. A
 * leave applied later (after the compute) would instead let a rebuild whose scan no longer saw the
 * key be swapped in first, and the leave would then take a colliding key's copy (point 2).
 * ChurnTest confirms a "present" read after an "absent" lookup under the key's lock for this
 * reason.
 *
 * <p>Not covered (as before): a write made through the unwrapped Caffeine cache or the raw JCache
 * while a rebuild scans may be entered by its Created filter before it is visible and missed by the
 * scan; writes through the guarded cache are covered by their open enter.
 *
 * <p>A filter must never throw (that would fail Caffeine's compute, i.e. the user's write): a guard
 * failure marks it stale and is logged.
 */
public final class CaffeineRemovals {

  private CaffeineRemovals() {}

  /**
   * A creation of a Caffeine-JCache cache that follows removals: the configuration to create it
   * with, and {@link #attach} once it exists.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  public static final class Creation<K, V> {
    private final CaffeineConfiguration<K, V> configuration;
    private final ScanTicker ticker;
    private final CacheGuard<K> guard;

    private Creation(
        CaffeineConfiguration<K, V> configuration, ScanTicker ticker, CacheGuard<K> guard) {
      this.configuration = configuration;
      this.ticker = ticker;
      this.guard = guard;
    }

    public Configuration<K, V> configuration() {
      return configuration;
    }

    /** Makes {@code cache} (created with {@link #configuration}) the guard's key source. */
    public void attach(Cache<K, V> cache) {
      guard.followRemovals(scanner(cache, ticker));
      guard.attach(cache);
    }
  }

  /**
   * A copy of {@code config} as a {@code CaffeineConfiguration} (Caffeine's settings kept if it is
   * one) with the scan-aware ticker and the in-compute listener, or null if it is not a {@link
   * CompleteConfiguration}. A plain {@code CompleteConfiguration} then keeps {@code
   * CaffeineConfiguration}'s default copier rather than the one of the provider's {@code
   * caffeine.jcache.default} settings, which Caffeine would otherwise overlay.
   */
  @SuppressWarnings("unchecked")
  public static <K, V> @Nullable Creation<K, V> prepare(
      Configuration<K, V> config, CacheGuard<K> guard) {
    if (!(config instanceof CompleteConfiguration)) {
      return null;
    }
    CaffeineConfiguration<K, V> copy =
        new CaffeineConfiguration<>((CompleteConfiguration<K, V>) config);
    ScanTicker ticker = new ScanTicker(copy.getTickerFactory().create());
    copy.setTickerFactory(new TickerFactory(ticker));
    copy.addCacheEntryListenerConfiguration(GuardListener.inCompute(guard));
    return new Creation<>(copy, ticker, guard);
  }

  /** Every key of Caffeine's map, each iterator step with the clock rewound. */
  @SuppressWarnings("unchecked")
  static <K> Consumer<Consumer<? super K>> scanner(Cache<K, ?> cache, ScanTicker ticker) {
    com.github.benmanes.caffeine.cache.Cache<K, ?> raw =
        cache.unwrap(com.github.benmanes.caffeine.cache.Cache.class);
    return action -> {
      Iterator<K> keys = ticker.rewound(() -> raw.asMap().keySet().iterator());
      while (ticker.rewound(keys::hasNext)) {
        action.accept(ticker.rewound(keys::next));
      }
    };
  }

  /**
   * Hands out the cache's one {@link ScanTicker}. Factories are {@link Serializable}; a
   * deserialized copy (another process) falls back to the system ticker.
   */
  static final class TickerFactory implements Factory<Ticker>, Serializable {
    private static final long serialVersionUID = 1L;

    private final transient @Nullable ScanTicker ticker;

    TickerFactory(ScanTicker ticker) {
      this.ticker = ticker;
    }

    @Override
    public Ticker create() {
      ScanTicker own = ticker;
      return own != null ? own : Ticker.systemTicker();
    }
  }
}
