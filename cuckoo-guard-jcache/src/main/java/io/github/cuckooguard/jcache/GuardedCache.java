package io.github.cuckooguard.jcache;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.jcache.internal.CacheContext;
import io.github.cuckooguard.jcache.internal.CacheGuard;
import io.github.cuckooguard.jcache.internal.DelegateProviders;
import io.github.cuckooguard.jcache.internal.GroupSettings;
import io.github.cuckooguard.jcache.internal.Groups;
import io.github.cuckooguard.jcache.internal.GuardListener;
import io.github.cuckooguard.jcache.internal.HidingConfiguration;
import io.github.cuckooguard.jcache.internal.NativeKeys;
import io.github.cuckooguard.jcache.internal.ObjectFunnel;
import io.github.cuckooguard.jcache.internal.Processors;
import io.github.cuckooguard.jcache.internal.Reads;
import io.github.cuckooguard.jcache.internal.Removals;
import io.github.cuckooguard.jcache.internal.Unwrapping;
import io.github.cuckooguard.jcache.internal.Writes;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.integration.CompletionListener;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorResult;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Cache} of any JSR-107 provider with a {@link CuckooGuard} in front: a lookup of a key
 * the guard knows is absent returns at once, without the provider's round trip (a network hop for a
 * distributed cache). Everything else is passed to the wrapped cache unchanged.
 *
 * <h2>What is short-circuited</h2>
 *
 * On a key the guard reports definitely absent: {@link #get} returns null, {@link #containsKey},
 * {@link #remove(Object)}, {@link #remove(Object, Object)}, {@link #replace(Object, Object)} and
 * {@link #replace(Object, Object, Object)} return false, {@link #getAndRemove} and {@link
 * #getAndReplace} return null; {@link #getAll} and {@link #removeAll(Set)} ask the provider only
 * for the other keys; {@link #invoke} runs the processor here against an absent entry and goes to
 * the provider only if the processor created the entry (then as {@code putIfAbsent}, falling back
 * to the provider's {@code invoke} if the key appeared meanwhile, so the processor may run twice in
 * that race); {@link #invokeAll} does the same per key. The arguments are checked exactly as the
 * provider would: null keys, values and processors throw {@link NullPointerException}, a closed
 * cache throws {@link IllegalStateException}.
 *
 * <p>Where a short-circuit cannot be exact, there is none:
 *
 * <ul>
 *   <li><b>Read-through</b> ({@code isReadThrough()}): a miss must reach the loader, so {@code
 *       get}, {@code getAll} and {@code invoke} always go to the provider.
 *   <li><b>Write-through</b> ({@code isWriteThrough()}): the provider calls the {@code CacheWriter}
 *       even for a key it does not hold, so {@code remove(key)}, {@code getAndRemove}, {@code
 *       removeAll(keys)} and {@code invoke} always go to the provider.
 *   <li><b>Statistics</b> ({@code isStatisticsEnabled()}, also when switched on later through
 *       {@link GuardedCacheManager#enableStatistics}): on Caffeine's provider a {@code get} or
 *       {@code getAll} the guard answers is counted as a miss in the provider's statistics, so it
 *       is still short-circuited; on other providers a skipped lookup would be missing from the
 *       provider's hit and miss counts, so only {@code containsKey} (which counts nothing) is
 *       short-circuited while statistics are on. The guard is maintained throughout. Switching
 *       statistics through the delegate's own manager is not seen.
 * </ul>
 *
 * <h2>How the guard follows the cache</h2>
 *
 * <ul>
 *   <li><b>Entries that appear</b>: every call through this object that may create an entry begins
 *       its keys' enters ({@link io.github.cuckooguard.PendingEnter}) before the provider call and
 *       ends them after it, visible if the provider's synchronous {@code Created} event for the key
 *       ran meanwhile, else aborted; so a key written through this object is never reported absent,
 *       also while the guard rebuilds. A key written by another process (another Hazelcast member)
 *       is entered by its {@code Created} event once that reached this process's listener. Lost
 *       events (a member leaving, an overloaded event queue) call for {@link #markStale}. The
 *       argument is in {@code internal.CacheGuard}.
 *   <li><b>Entries that go</b>: caches that {@link GuardedCacheManager#createCache} created on
 *       Caffeine's provider, and heap-only caches it created on Ehcache 3, follow every removal
 *       (explicit, expiry, eviction) from the provider's own events, paired inside the provider's
 *       atomic change. Elsewhere {@link #remove(Object)}, {@link #remove(Object, Object)} and
 *       {@link #getAndRemove} remove the key's fingerprint when the wrapped provider makes every
 *       creation in this process and reports it before the creating call returns: the leave is
 *       announced before the provider call and completed after it. Other removals (there, and every
 *       removal on Hazelcast and on other providers) leave their fingerprints until the next
 *       rebuild: lookups of those keys go to the provider (false positives), never the reverse. The
 *       guard rebuilds from the cache when its filter passes its load threshold, had to grow, or
 *       its observed false-positive rate drifts, which clears the leaks.
 *   <li><b>{@link #clear()}</b> fires no events: the guard answers "might be present" until a
 *       rebuild has read the cache again.
 *   <li><b>A cache that already held entries</b> when it was wrapped, and any event that may have
 *       been lost ({@link #markStale}), put the guard in pass-through (every key "might be
 *       present") until a rebuild has read the cache's keys. A cache that {@link
 *       GuardedCacheManager#createCache} created on a provider that keeps caches in this process
 *       (Caffeine, Ehcache) gets the listener inside its creation configuration and needs no such
 *       scan.
 *   <li><b>Rebuilds</b> read the provider's own storage where the adapter knows it (Caffeine's map,
 *       Ehcache's store, a Hazelcast member's partitions, in bulk), which is no JCache access: no
 *       access expiry, no hits. Elsewhere they iterate the wrapped cache ({@link
 *       Cache#iterator()}), which JCache counts as an access of every entry.
 *   <li><b>Hazelcast</b>: a cache of a member obtained through {@link GuardedCacheManager} joins
 *       the guard group of its cache on the cluster (with {@code cuckoo-guard-hazelcast} on the
 *       class path, unless the setting {@value GuardSettings#CLUSTER} is false): every write
 *       through a guarded cache on any member begins its enter on every member before the provider
 *       call and waits for the group, every removal through it announces its leave on every member
 *       first and ends it by the call's result, a member answers "absent" only while it holds the
 *       group's lease, and no listener is registered; expiry and eviction are not paired, a rebuild
 *       drops their fingerprints once they exceed the entries by 2 %. If the group cannot take a
 *       write in time the call throws {@link javax.cache.CacheException} and changes nothing.
 *       Outside a group the guard's listener is asynchronous, so no write waits on it; a write
 *       through this object ends its enter visible whenever the key is in the cache after the call.
 * </ul>
 *
 * <p>Writes must go through this object or reach the provider's event listeners (writes by other
 * processes of a distributed cache do). A write to the wrapped cache from this process that
 * bypasses this object can be missed during the moment before its event is processed.
 *
 * <p>Thread safety: as the wrapped cache; every method may be called from any thread.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardedCache<K, V> implements Cache<K, V> {

  private final CacheContext<K, V> context;
  private final Cache<K, V> delegate;
  private final CacheGuard<K> guard;
  private final @Nullable GuardedCacheManager manager;
  private final Reads<K, V> reads;
  private final Writes<K, V> writes;
  private final Removals<K, V> removals;
  private final Processors<K, V> processors;

  GuardedCache(Cache<K, V> delegate, CacheGuard<K> guard, @Nullable GuardedCacheManager manager) {
    this.context = new CacheContext<>(delegate, guard);
    this.delegate = delegate;
    this.guard = guard;
    this.manager = manager;
    this.reads = new Reads<>(context);
    this.writes = new Writes<>(context);
    this.removals = new Removals<>(context);
    this.processors = new Processors<>(context);
  }

  /**
   * A builder that guards {@code cache}, an existing cache of any provider. The cache may hold
   * entries already: the guard answers in pass-through mode until it has read them. To guard every
   * cache of an application by configuration instead, use {@link GuardedCachingProvider}.
   *
   * @throws NullPointerException if {@code cache} is null
   */
  public static <K, V> Builder<K, V> newBuilder(Cache<K, V> cache) {
    return new Builder<>(Objects.requireNonNull(cache, "cache"));
  }

  // ---- the guard ----

  /**
   * False if {@code key} is definitely not in the cache; true if it is, or, with about the
   * configured false-positive probability, if it is not; always true in pass-through mode.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public boolean mightContain(K key) {
    return guard.mightContain(Objects.requireNonNull(key, "key"));
  }

  /** The guard's counters: lookups, definite misses, false positives, size, rebuilds. */
  public GuardStats stats() {
    return guard.guard().stats();
  }

  /**
   * Whether every key currently "might be present" (after {@link #markStale} or {@link #clear()},
   * while a cache that held entries is first read, after a failed rebuild).
   */
  public boolean isPassThrough() {
    return guard.isPassThrough();
  }

  /**
   * Tells the guard that the cache may have changed without events reaching it (a member left the
   * cluster, events were dropped under load, the cache was written by a path that bypasses
   * listeners): the guard answers "might be present" for every key until a rebuild, requested here,
   * has read the cache's keys again. Call it once the change is visible; for Hazelcast, from a
   * {@code MembershipListener.memberRemoved}, a {@code MigrationListener} and a cache {@code
   * PartitionLostListener}.
   *
   * @param reason logged and passed to rebuild listeners
   * @throws NullPointerException if {@code reason} is null
   */
  public void markStale(String reason) {
    guard.guard().markStale(reason);
  }

  /**
   * Rebuilds the guard from the cache's keys now (or right after the rebuild that is running).
   *
   * @return completes when a rebuild that started after this call has swapped in its filter, or
   *     exceptionally with its failure (the guard then stays in pass-through mode and retries)
   */
  public CompletableFuture<Void> rebuild() {
    return guard.guard().rebuild();
  }

  /** The wrapped cache. */
  Cache<K, V> delegate() {
    return delegate;
  }

  void statisticsEnabled(boolean enabled) {
    context.statisticsEnabled(enabled);
  }

  // ---- the cache: lookups, writes, removals and processors are in .internal ----

  @Override
  public @Nullable V get(K key) {
    return reads.get(key);
  }

  @Override
  public Map<K, V> getAll(Set<? extends K> keys) {
    return reads.getAll(keys);
  }

  @Override
  public boolean containsKey(K key) {
    return reads.containsKey(key);
  }

  @Override
  public Iterator<Entry<K, V>> iterator() {
    return delegate.iterator();
  }

  @Override
  public void loadAll(
      Set<? extends K> keys,
      boolean replaceExistingValues,
      @Nullable CompletionListener completionListener) {
    writes.loadAll(keys, replaceExistingValues, completionListener);
  }

  @Override
  public void put(K key, V value) {
    writes.put(key, value);
  }

  @Override
  public @Nullable V getAndPut(K key, V value) {
    return writes.getAndPut(key, value);
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    writes.putAll(map);
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    return writes.putIfAbsent(key, value);
  }

  @Override
  public boolean remove(K key) {
    return removals.remove(key);
  }

  @Override
  public boolean remove(K key, V oldValue) {
    return removals.remove(key, oldValue);
  }

  @Override
  public @Nullable V getAndRemove(K key) {
    return removals.getAndRemove(key);
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    return removals.replace(key, oldValue, newValue);
  }

  @Override
  public boolean replace(K key, V value) {
    return removals.replace(key, value);
  }

  @Override
  public @Nullable V getAndReplace(K key, V value) {
    return removals.getAndReplace(key, value);
  }

  @Override
  public void removeAll(Set<? extends K> keys) {
    removals.removeAll(keys);
  }

  @Override
  public void removeAll() {
    removals.removeAll();
  }

  /**
   * Removes every entry without events, as the wrapped cache does, and puts the guard in
   * pass-through until a rebuild has read the cache again (which drops the cleared keys'
   * fingerprints).
   */
  @Override
  public void clear() {
    removals.clear();
  }

  @Override
  public <T> @Nullable T invoke(
      K key, EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
    return processors.invoke(key, entryProcessor, arguments);
  }

  @Override
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(
      Set<? extends K> keys, EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
    return processors.invokeAll(keys, entryProcessor, arguments);
  }

  // ---- the rest is the wrapped cache's ----

  @Override
  public String getName() {
    return delegate.getName();
  }

  /** The guarded manager this cache was obtained from, else the wrapped cache's manager. */
  @Override
  public @Nullable CacheManager getCacheManager() {
    return manager != null ? manager : delegate.getCacheManager();
  }

  /**
   * The wrapped cache's configuration; asked for as {@link Configuration} or {@link
   * CompleteConfiguration}, a read-only view without the guard's own listener.
   */
  @Override
  public <C extends Configuration<K, V>> C getConfiguration(Class<C> clazz) {
    C config = delegate.getConfiguration(clazz);
    if (config instanceof CompleteConfiguration<K, V> complete
        && clazz.isAssignableFrom(HidingConfiguration.class)) {
      return clazz.cast(new HidingConfiguration<>(complete));
    }
    return config;
  }

  @Override
  public void registerCacheEntryListener(
      CacheEntryListenerConfiguration<K, V> cacheEntryListenerConfiguration) {
    delegate.registerCacheEntryListener(cacheEntryListenerConfiguration);
  }

  @Override
  public void deregisterCacheEntryListener(
      CacheEntryListenerConfiguration<K, V> cacheEntryListenerConfiguration) {
    delegate.deregisterCacheEntryListener(cacheEntryListenerConfiguration);
  }

  @Override
  public void close() {
    guard.close();
    delegate.close();
    if (manager != null) {
      manager.forget(this);
    }
  }

  @Override
  public boolean isClosed() {
    return delegate.isClosed();
  }

  /** Stops the guard's reads of the cache before the provider closes or destroys it. */
  void closeGuard() {
    guard.close();
  }

  /** This object if it is an instance of {@code clazz}, else what the wrapped cache unwraps to. */
  @Override
  public <T> T unwrap(Class<T> clazz) {
    return Unwrapping.unwrap(this, clazz, delegate::unwrap);
  }

  @Override
  public String toString() {
    return "GuardedCache[" + delegate.getName() + ", " + stats() + "]";
  }

  // ---- construction ----

  /**
   * Guards an existing cache: registers the guard's listener, then reads the cache's keys in the
   * background while the guard answers in pass-through mode.
   */
  static <K, V> GuardedCache<K, V> wrapExisting(
      Cache<K, V> cache, CacheGuard<K> guard, @Nullable GuardedCacheManager manager) {
    return wrapExisting(cache, guard, manager, null);
  }

  /**
   * As {@link #wrapExisting(Cache, CacheGuard, GuardedCacheManager)}; with {@code group} non-null,
   * a cache of a Hazelcast member joins the guard group of its cache on the cluster, with those
   * settings, instead of registering a listener ({@link Groups}).
   */
  static <K, V> GuardedCache<K, V> wrapExisting(
      Cache<K, V> cache,
      CacheGuard<K> guard,
      @Nullable GuardedCacheManager manager,
      @Nullable GroupSettings group) {
    boolean hazelcast = NativeKeys.isHazelcast(cache);
    attach(cache, guard);
    if (group != null && !cache.isClosed() && Groups.join(cache, guard, group)) {
      // Every member's writes through its guarded cache reach this guard as the group's messages,
      // before they are visible; no listener, so no event adds a second copy of a key and no write
      // of the application waits on the guard. The group's join rebuilds from the cache's keys
      // (the partitions', HazelcastKeys) and passes through until then.
      return new GuardedCache<>(cache, guard, manager);
    }
    if (hazelcast) {
      guard.asynchronousEvents();
    }
    if (cache.isClosed()) {
      // A provider may hand out a cache that is already closed (Hazelcast, for a cache destroyed
      // through another manager). Every call of the guarded cache then fails as the provider's
      // does; the guard registers nothing and stays in pass-through.
      guard.guard().markStale("cache '" + cache.getName() + "' was closed when it was obtained");
      return new GuardedCache<>(cache, guard, manager);
    }
    // Hazelcast: asynchronous, so that no write waits on the guard's listener (a synchronous one
    // can
    // hold a write until Hazelcast's completion timeout: an update whose expiry is zero, a
    // read-only
    // entry processor, a write whose writer throws); writes through this object end their enters
    // on what the call left in the cache instead (CacheGuard.asynchronousEvents). Hazelcast counts
    // an asynchronous listener's handling of an event towards the completion latch of the
    // application's synchronous listeners, so with the guard registered such a listener may run
    // after the write returned (see the README).
    cache.registerCacheEntryListener(GuardListener.configuration(guard, !hazelcast));
    guard
        .guard()
        .markStale("initial scan of cache '" + cache.getName() + "', which may hold entries");
    return new GuardedCache<>(cache, guard, manager);
  }

  /** Makes {@code cache} the guard's key source, read natively where the provider allows. */
  static <K> void attach(Cache<K, ?> cache, CacheGuard<K> guard) {
    guard.attach(cache);
    Consumer<Consumer<? super K>> scan = NativeKeys.of(cache);
    if (scan != null) {
      guard.nativeKeys(scan);
    }
  }

  /**
   * Builds a {@link GuardedCache} around an existing cache. Setters check their values at once; the
   * guard settings are given either as a {@link GuardSpec} or one by one, not both. Not
   * thread-safe.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  public static final class Builder<K, V> {
    private final Cache<K, V> cache;
    private final GuardSpec.Builder settings = GuardSpec.newBuilder();
    private boolean settingsTouched;
    private @Nullable GuardSpec spec;
    private Funnel<? super K> funnel = ObjectFunnel.INSTANCE;
    private @Nullable Executor executor;

    private Builder(Cache<K, V> cache) {
      this.cache = cache;
    }

    /**
     * How keys are turned into bytes for hashing; by default a funnel that handles {@code String},
     * {@code Long}, {@code Integer}, {@code UUID} and {@code byte[]} by value and any other key by
     * its {@code hashCode()} (fine, but with more false positives for keys whose hash codes
     * collide). Equal keys must produce equal bytes.
     *
     * @throws NullPointerException if {@code funnel} is null
     */
    public Builder<K, V> funnel(Funnel<? super K> funnel) {
      this.funnel = Objects.requireNonNull(funnel, "funnel");
      return this;
    }

    /**
     * All guard settings at once (capacity, fpp or fingerprint width, seed, rebuild triggers).
     *
     * @throws IllegalStateException if a spec or a single setting was already given
     * @throws NullPointerException if {@code spec} is null
     */
    public Builder<K, V> spec(GuardSpec spec) {
      if (this.spec != null || settingsTouched) {
        throw new IllegalStateException(
            "the guard settings were already given ("
                + (this.spec != null ? this.spec : "one by one")
                + ")");
      }
      this.spec = Objects.requireNonNull(spec, "spec");
      return this;
    }

    private GuardSpec.Builder settings() {
      if (spec != null) {
        throw new IllegalStateException(
            "the guard settings were already given as a spec (" + spec + ")");
      }
      settingsTouched = true;
      return settings;
    }

    /**
     * Keys the guard holds without a rebuild (default {@value
     * AbstractFilterBuilder#DEFAULT_EXPECTED_INSERTIONS}); see {@link
     * GuardSpec.Builder#expectedInsertions}.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder<K, V> expectedInsertions(long expectedInsertions) {
      settings().expectedInsertions(expectedInsertions);
      return this;
    }

    /**
     * The former name of {@link #expectedInsertions}.
     *
     * @deprecated use {@link #expectedInsertions}
     */
    @Deprecated
    public Builder<K, V> expectedEntries(long expectedEntries) {
      return expectedInsertions(expectedEntries);
    }

    /**
     * Target false-positive probability (default {@value AbstractFilterBuilder#DEFAULT_FPP}); see
     * {@link GuardSpec.Builder#fpp}.
     *
     * @throws IllegalArgumentException if not in (0, 1)
     */
    public Builder<K, V> fpp(double fpp) {
      settings().fpp(fpp);
      return this;
    }

    /**
     * Runs the guard's rebuilds (default {@link java.util.concurrent.ForkJoinPool#commonPool()});
     * must not run tasks on the calling thread, since rebuilds are requested from event listeners.
     *
     * @throws NullPointerException if {@code executor} is null
     */
    public Builder<K, V> executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Registers the guard's listener on the cache and starts reading its keys in the background;
     * until that finished the guard answers "might be present" for every key.
     *
     * @throws IllegalStateException if the cache is closed
     * @throws IllegalArgumentException if the filter settings cannot be met
     */
    public GuardedCache<K, V> build() {
      CuckooGuard.Builder<K> builder =
          CuckooGuard.<K>newBuilder(funnel)
              .spec(spec != null ? spec : settings.build())
              .name("jcache:" + cache.getName());
      if (executor != null) {
        builder.executor(executor);
      }
      return wrapExisting(
          cache, new CacheGuard<>(builder, DelegateProviders.eventsBeforeReturn(cache)), null);
    }
  }
}
