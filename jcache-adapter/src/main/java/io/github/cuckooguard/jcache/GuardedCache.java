package io.github.cuckooguard.jcache;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.jcache.internal.AbsentEntry;
import io.github.cuckooguard.jcache.internal.CacheTracker;
import io.github.cuckooguard.jcache.internal.GuardListener;
import io.github.cuckooguard.jcache.internal.HidingConfiguration;
import io.github.cuckooguard.jcache.internal.InFlightWrites;
import io.github.cuckooguard.jcache.internal.ObjectFunnel;
import io.github.cuckooguard.jcache.internal.Unwrapping;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.integration.CompletionListener;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Cache} of any JSR-107 provider with a {@link CuckooGuard} in front: a lookup of a key
 * the guard knows is absent returns at once, without the provider's round trip (a network hop for
 * a distributed cache). Everything else is passed to the wrapped cache unchanged.
 *
 * <h2>What is short-circuited</h2>
 *
 * On a key the guard reports definitely absent: {@link #get} returns null, {@link #containsKey},
 * {@link #remove(Object)}, {@link #remove(Object, Object)}, {@link #replace(Object, Object)} and
 * {@link #replace(Object, Object, Object)} return false, {@link #getAndRemove} and
 * {@link #getAndReplace} return null; {@link #getAll} and {@link #removeAll(Set)} ask the provider
 * only for the other keys; {@link #invoke} runs the processor here against an absent entry and goes
 * to the provider only if the processor created the entry (then as {@code putIfAbsent}, falling
 * back to the provider's {@code invoke} if the key appeared meanwhile, so the processor may run
 * twice in that race); {@link #invokeAll} does the same per key. The arguments are checked exactly
 * as the provider would: null keys, values and processors throw {@link NullPointerException}, a
 * closed cache throws {@link IllegalStateException}.
 *
 * <p>Where a short-circuit cannot be exact, there is none:
 * <ul>
 *   <li><b>Read-through</b> ({@code isReadThrough()}): a miss must reach the loader, so
 *       {@code get}, {@code getAll} and {@code invoke} always go to the provider. Loads create
 *       entries, so these calls are bracketed like writes (see below).
 *   <li><b>Write-through</b> ({@code isWriteThrough()}): the provider calls the
 *       {@code CacheWriter} even for a key it does not hold, so {@code remove(key)},
 *       {@code getAndRemove}, {@code removeAll(keys)} and {@code invoke} always go to the provider.
 *   <li><b>Statistics</b> ({@code isStatisticsEnabled()}, also when switched on later through
 *       {@link GuardedCacheManager#enableStatistics}): a skipped lookup would be missing from the
 *       provider's hit and miss counts, so nothing is short-circuited while statistics are on. The
 *       guard is still maintained, so short-circuits resume when they are switched off. Switching
 *       statistics through the delegate's own manager is not seen.
 * </ul>
 *
 * <h2>How the guard follows the cache</h2>
 *
 * <ul>
 *   <li><b>Entries that appear</b> enter the guard through a synchronous {@code Created} listener
 *       the guarded cache registers on the wrapped cache. Providers fire that event after the
 *       entry became visible (Caffeine's JCache even runs synchronous listeners on its executor),
 *       so every call that may create an entry ({@code put}, {@code putAll}, {@code getAndPut},
 *       {@code putIfAbsent}, {@code invoke}, {@code invokeAll}, {@code loadAll}, and loads of a
 *       read-through cache) first marks its keys in flight and unmarks them when it returned, by
 *       which time the synchronous listener ran; a key in flight always answers "might contain".
 *       Some providers return before their synchronous listeners ran (Ehcache 3 under concurrent
 *       writes; Caffeine's {@code loadAll}): if no Created event for the key arrived during the
 *       call and the guard does not know the key, the cache is asked and a present key is entered
 *       directly (its late event then leaks a fingerprint). So a key written through this object
 *       is not reported absent. A key written by another process (another Hazelcast member) is
 *       known once its event reached this process's listener, which may be after the writer's call
 *       returned: Hazelcast's synchronous listeners hold back only the writes made through the
 *       member they were registered on. Lost events (a member leaving, an overloaded event queue)
 *       call for {@link #markStale}.
 *   <li><b>Entries that go</b> (removal, expiry, eviction) do <em>not</em> remove fingerprints:
 *       no provider delivers an event that makes that safe (Caffeine's JCache can run a Removed
 *       listener while the entry is still readable, Ehcache can deliver a Created event after the
 *       write returned, Hazelcast delivers other members' events asynchronously, and after a
 *       rebuild a late event would be an unpaired remove). The fingerprints of keys that left leak:
 *       lookups of those keys go to the provider (false positives), never the reverse. A key that
 *       is removed and created again reuses its fingerprint (the guard remembers a few thousand keys
 *       entered since its last rebuild). The guard rebuilds from
 *       the cache when its filter passes its load threshold, had to grow, or its observed
 *       false-positive rate drifts above the target, which clears the leaks; size the expected
 *       entries for the number of creations between rebuilds you can afford.
 *   <li><b>{@link #clear()}</b> fires no events and needs none: the cleared keys' fingerprints
 *       leak like any other removal.
 *   <li><b>A cache that already held entries</b> when it was wrapped, and any event that may have
 *       been lost ({@link #markStale}), put the guard in pass-through (every key "might be
 *       present") until a rebuild has read the cache's keys. A cache that
 *       {@link GuardedCacheManager#createCache} created on a provider that keeps caches in this
 *       process (Caffeine, Ehcache) gets the listener inside its creation configuration and needs
 *       no such scan.
 *   <li><b>Rebuilds</b> iterate this cache's entries ({@link Cache#iterator()}) as the guard's
 *       key source, on the guard's executor, and add the keys of writes in flight. JCache counts
 *       the iteration as an access of every entry: it may extend access-based expiry and count as
 *       hits in statistics, and it may expire entries on the way. For a distributed cache it reads
 *       the whole cache over the network.
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

  private final Cache<K, V> delegate;
  private final CacheTracker<K> tracker;
  private final InFlightWrites<K> writes;
  private final @Nullable GuardedCacheManager manager;
  private final boolean readThrough;
  private final boolean writeThrough;
  private volatile boolean statisticsEnabled;

  GuardedCache(Cache<K, V> delegate, CacheTracker<K> tracker, @Nullable GuardedCacheManager manager) {
    this.delegate = delegate;
    this.tracker = tracker;
    this.writes = new InFlightWrites<>(tracker, this::presentAtProvider);
    this.manager = manager;
    CompleteConfiguration<?, ?> config = completeConfiguration(delegate);
    this.readThrough = config == null || config.isReadThrough();
    this.writeThrough = config == null || config.isWriteThrough();
    this.statisticsEnabled = config == null || config.isStatisticsEnabled();
  }

  @SuppressWarnings("unchecked")
  private static @Nullable CompleteConfiguration<?, ?> completeConfiguration(Cache<?, ?> cache) {
    try {
      return cache.getConfiguration(CompleteConfiguration.class);
    } catch (IllegalArgumentException e) {
      return null; // unknown configuration: assume read-through, write-through and statistics
    }
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
    return tracker.mightContain(Objects.requireNonNull(key, "key"));
  }

  /** The guard's counters: lookups, definite misses, false positives, size, rebuilds. */
  public GuardStats stats() {
    return tracker.guard().stats();
  }

  /**
   * Whether every key currently "might be present" (after {@link #markStale}, while a cache that
   * held entries is first read, after a failed rebuild).
   */
  public boolean isPassThrough() {
    return tracker.guard().isPassThrough();
  }

  /**
   * Tells the guard that the cache may have changed without events reaching it (a member left
   * the cluster, events were dropped under load, the cache was written by a path that bypasses
   * listeners): the guard answers "might be present" for every key until a rebuild, requested
   * here, has read the cache's keys again. Call it once the change is visible; for Hazelcast, from
   * a {@code MembershipListener.memberRemoved}, a {@code MigrationListener} and a cache
   * {@code PartitionLostListener}.
   *
   * @param reason logged and passed to rebuild listeners
   * @throws NullPointerException if {@code reason} is null
   */
  public void markStale(String reason) {
    tracker.guard().markStale(reason);
  }

  /**
   * Rebuilds the guard from the cache's keys now (or right after the rebuild that is running).
   *
   * @return completes when a rebuild that started after this call has swapped in its filter, or
   *     exceptionally with its failure (the guard then stays in pass-through mode and retries)
   */
  public CompletableFuture<Void> rebuild() {
    return tracker.guard().rebuild();
  }

  /** The wrapped cache. */
  Cache<K, V> delegate() {
    return delegate;
  }

  void statisticsEnabled(boolean enabled) {
    this.statisticsEnabled = enabled;
  }

  // ---- short-circuit support ----

  /** Whether a lookup-only call may be answered by the guard. */
  private boolean guardAnswersReads() {
    return !readThrough && !statisticsEnabled;
  }

  /** Whether a removal of an absent key may be answered by the guard. */
  private boolean guardAnswersRemovals() {
    return !writeThrough && !statisticsEnabled;
  }

  /** True if the guard may answer and says {@code key} is absent. */
  private boolean skip(boolean guardAnswers, K key) {
    return guardAnswers && !tracker.mightContain(key);
  }

  private void requireOpen() {
    if (delegate.isClosed()) {
      throw new IllegalStateException("Cache '" + delegate.getName() + "' is closed");
    }
  }

  private boolean presentAtProvider(K key) {
    return !delegate.isClosed() && delegate.containsKey(key);
  }

  private static <K> void requireNoNullKeys(Collection<? extends K> keys) {
    for (K key : keys) {
      Objects.requireNonNull(key, "keys contains a null key");
    }
  }

  // ---- reads ----

  @Override
  public @Nullable V get(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    if (readThrough) {
      return writes.run(key, () -> delegate.get(key), Objects::nonNull);
    }
    boolean guarded = guardAnswersReads();
    if (skip(guarded, key)) {
      return null;
    }
    V value = delegate.get(key);
    if (value == null && guarded) {
      tracker.absentAfterMaybe(key);
    }
    return value;
  }

  @Override
  public Map<K, V> getAll(Set<? extends K> keys) {
    requireOpen();
    Objects.requireNonNull(keys, "keys");
    requireNoNullKeys(keys);
    if (readThrough) {
      return writes.runAll(keys, () -> delegate.getAll(keys));
    }
    if (!guardAnswersReads()) {
      return delegate.getAll(keys);
    }
    Set<K> maybe = new LinkedHashSet<>();
    for (K key : keys) {
      if (tracker.mightContain(key)) {
        maybe.add(key);
      }
    }
    if (maybe.isEmpty()) {
      return new HashMap<>();
    }
    Map<K, V> found = delegate.getAll(maybe.size() == keys.size() ? keys : maybe);
    for (K key : maybe) {
      if (!found.containsKey(key)) {
        tracker.absentAfterMaybe(key);
      }
    }
    return found;
  }

  @Override
  public boolean containsKey(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    boolean guarded = !statisticsEnabled;
    if (skip(guarded, key)) {
      return false;
    }
    boolean present = delegate.containsKey(key);
    if (!present && guarded) {
      tracker.absentAfterMaybe(key);
    }
    return present;
  }

  @Override
  public Iterator<Entry<K, V>> iterator() {
    return delegate.iterator();
  }

  // ---- writes: may create entries, so their keys are in flight until the call returned ----

  /**
   * Loads through the wrapped cache. Its keys count as in flight until the provider reports
   * completion; some providers (Caffeine) report it before their synchronous Created events ran,
   * so at completion each requested key that the guard does not know and the cache holds is entered
   * into the guard directly (the event enters it again: a leaked fingerprint, safe). A loader that
   * returns keys it was not asked for breaks this: such keys may be reported absent until their
   * events ran.
   */
  @Override
  public void loadAll(Set<? extends K> keys, boolean replaceExistingValues,
      @Nullable CompletionListener completionListener) {
    requireOpen();
    Objects.requireNonNull(keys, "keys");
    requireNoNullKeys(keys);
    InFlightWrites<K>.Batch inFlight = writes.begin(keys);
    AtomicBoolean ended = new AtomicBoolean();
    Runnable end = () -> {
      if (ended.compareAndSet(false, true)) {
        inFlight.end();
      }
    };
    try {
      delegate.loadAll(keys, replaceExistingValues, new CompletionListener() {
        @Override
        public void onCompletion() {
          end.run();
          if (completionListener != null) {
            completionListener.onCompletion();
          }
        }

        @Override
        public void onException(Exception e) {
          end.run();
          if (completionListener != null) {
            completionListener.onException(e);
          }
        }
      });
    } catch (RuntimeException | Error e) {
      end.run();
      throw e;
    }
  }

  @Override
  public void put(K key, V value) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    writes.run(key, () -> {
      delegate.put(key, value);
      return null;
    });
  }

  @Override
  public @Nullable V getAndPut(K key, V value) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    return writes.run(key, () -> delegate.getAndPut(key, value));
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    requireOpen();
    Objects.requireNonNull(map, "map");
    requireNoNullKeys(map.keySet());
    writes.runAll(map.keySet(), () -> {
      delegate.putAll(map);
      return null;
    });
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    return writes.run(key, () -> delegate.putIfAbsent(key, value), Boolean::booleanValue);
  }

  // ---- removals and replacements: never create entries ----

  @Override
  public boolean remove(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    boolean guarded = guardAnswersRemovals();
    if (skip(guarded, key)) {
      return false;
    }
    boolean removed = delegate.remove(key);
    if (!removed && guarded) {
      tracker.absentAfterMaybe(key);
    }
    return removed;
  }

  @Override
  public boolean remove(K key, V oldValue) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(oldValue, "oldValue");
    // the writer is only called when the entry is removed, so write-through does not matter
    return !skip(!statisticsEnabled, key) && delegate.remove(key, oldValue);
  }

  @Override
  public @Nullable V getAndRemove(K key) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    boolean guarded = guardAnswersRemovals();
    if (skip(guarded, key)) {
      return null;
    }
    V value = delegate.getAndRemove(key);
    if (value == null && guarded) {
      tracker.absentAfterMaybe(key);
    }
    return value;
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(oldValue, "oldValue");
    Objects.requireNonNull(newValue, "newValue");
    return !skip(!statisticsEnabled, key) && delegate.replace(key, oldValue, newValue);
  }

  @Override
  public boolean replace(K key, V value) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return !skip(!statisticsEnabled, key) && delegate.replace(key, value);
  }

  @Override
  public @Nullable V getAndReplace(K key, V value) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return skip(!statisticsEnabled, key) ? null : delegate.getAndReplace(key, value);
  }

  @Override
  public void removeAll(Set<? extends K> keys) {
    requireOpen();
    Objects.requireNonNull(keys, "keys");
    requireNoNullKeys(keys);
    if (!guardAnswersRemovals()) {
      delegate.removeAll(keys);
      return;
    }
    Set<K> maybe = new LinkedHashSet<>();
    for (K key : keys) {
      if (tracker.mightContain(key)) {
        maybe.add(key);
      }
    }
    if (!maybe.isEmpty()) {
      delegate.removeAll(maybe.size() == keys.size() ? keys : maybe);
    }
  }

  @Override
  public void removeAll() {
    delegate.removeAll();
  }

  /**
   * Removes every entry without events, as the wrapped cache does. The keys' fingerprints stay
   * until the next rebuild, like those of any removed key: lookups of those keys go to the provider
   * (false positives), never the reverse.
   */
  @Override
  public void clear() {
    delegate.clear();
  }

  // ---- entry processors ----

  @Override
  public <T> @Nullable T invoke(K key, EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
    requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(entryProcessor, "entryProcessor");
    if (!guardAnswersInvoke() || tracker.mightContain(key)) {
      return writes.run(key, () -> delegate.invoke(key, entryProcessor, arguments));
    }
    return invokeAbsent(key, entryProcessor, arguments);
  }

  /** An entry processor on an absent key may run here unless a loader or writer must see it. */
  private boolean guardAnswersInvoke() {
    return !readThrough && !writeThrough && !statisticsEnabled;
  }

  private <T> @Nullable T invokeAbsent(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    AbsentEntry.Outcome<V, T> outcome = AbsentEntry.process(key, processor, arguments);
    V created = outcome.created();
    if (created == null) {
      return outcome.result();
    }
    return writes.run(key, () -> delegate.putIfAbsent(key, created)
        ? outcome.result()
        : delegate.invoke(key, processor, arguments));
  }

  @Override
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(Set<? extends K> keys,
      EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
    requireOpen();
    Objects.requireNonNull(keys, "keys");
    requireNoNullKeys(keys);
    Objects.requireNonNull(entryProcessor, "entryProcessor");
    if (!guardAnswersInvoke()) {
      return writes.runAll(keys, () -> delegate.invokeAll(keys, entryProcessor, arguments));
    }
    Set<K> maybe = new LinkedHashSet<>();
    List<K> absent = new ArrayList<>();
    for (K key : keys) {
      if (tracker.mightContain(key)) {
        maybe.add(key);
      } else {
        absent.add(key);
      }
    }
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    if (!maybe.isEmpty()) {
      results.putAll(writes.runAll(maybe, () -> delegate.invokeAll(maybe, entryProcessor, arguments)));
    }
    for (K key : absent) {
      try {
        T result = invokeAbsent(key, entryProcessor, arguments);
        if (result != null) {
          results.put(key, () -> result);
        }
      } catch (EntryProcessorException e) {
        results.put(key, () -> {
          throw e;
        });
      }
    }
    return results;
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
   * The wrapped cache's configuration; asked for as {@link Configuration} or
   * {@link CompleteConfiguration}, a read-only view without the guard's own listener.
   */
  @Override
  public <C extends Configuration<K, V>> C getConfiguration(Class<C> clazz) {
    C config = delegate.getConfiguration(clazz);
    if (config instanceof CompleteConfiguration<K, V> complete && clazz.isAssignableFrom(HidingConfiguration.class)) {
      return clazz.cast(new HidingConfiguration<>(complete));
    }
    return config;
  }

  @Override
  public void registerCacheEntryListener(CacheEntryListenerConfiguration<K, V> cacheEntryListenerConfiguration) {
    delegate.registerCacheEntryListener(cacheEntryListenerConfiguration);
  }

  @Override
  public void deregisterCacheEntryListener(CacheEntryListenerConfiguration<K, V> cacheEntryListenerConfiguration) {
    delegate.deregisterCacheEntryListener(cacheEntryListenerConfiguration);
  }

  @Override
  public void close() {
    delegate.close();
    if (manager != null) {
      manager.forget(this);
    }
  }

  @Override
  public boolean isClosed() {
    return delegate.isClosed();
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
  static <K, V> GuardedCache<K, V> wrapExisting(Cache<K, V> cache, CacheTracker<K> tracker,
      @Nullable GuardedCacheManager manager) {
    CacheEntryListenerConfiguration<K, V> listener = GuardListener.configuration(tracker);
    cache.registerCacheEntryListener(listener);
    tracker.attach(cache);
    tracker.guard().markStale("initial scan of cache '" + cache.getName() + "', which may hold entries");
    return new GuardedCache<>(cache, tracker, manager);
  }

  /**
   * Builds a {@link GuardedCache} around an existing cache. Setters check their values at once.
   * Not thread-safe.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  public static final class Builder<K, V> {
    private final Cache<K, V> cache;
    private Funnel<? super K> funnel = ObjectFunnel.INSTANCE;
    private long expectedEntries = GuardSettings.DEFAULT_EXPECTED_ENTRIES;
    private double fpp = GuardSettings.DEFAULT_FPP;
    private @Nullable Executor executor;

    private Builder(Cache<K, V> cache) {
      this.cache = cache;
    }

    /**
     * How keys are turned into bytes for hashing; by default a funnel that handles
     * {@code String}, {@code Long}, {@code Integer}, {@code UUID} and {@code byte[]} by value and
     * any other key by its {@code hashCode()} (fine, but with more false positives for keys
     * whose hash codes collide). Equal keys must produce equal bytes.
     *
     * @throws NullPointerException if {@code funnel} is null
     */
    public Builder<K, V> funnel(Funnel<? super K> funnel) {
      this.funnel = Objects.requireNonNull(funnel, "funnel");
      return this;
    }

    /**
     * Entries the guard is sized for (default {@value GuardSettings#DEFAULT_EXPECTED_ENTRIES}); it
     * grows beyond, and rebuilds right-sized.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder<K, V> expectedEntries(long expectedEntries) {
      this.expectedEntries = GuardSettings.checkExpectedEntries(expectedEntries, "expectedEntries");
      return this;
    }

    /**
     * Target false-positive probability (default {@value GuardSettings#DEFAULT_FPP}).
     *
     * @throws IllegalArgumentException if not in (0, 1)
     */
    public Builder<K, V> fpp(double fpp) {
      this.fpp = GuardSettings.checkFpp(fpp, "fpp");
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
      CuckooGuard.Builder<K> guard = CuckooGuard.<K>newBuilder(funnel)
          .expectedInsertions(expectedEntries)
          .fpp(fpp)
          .name("jcache:" + cache.getName());
      if (executor != null) {
        guard.executor(executor);
      }
      return wrapExisting(cache, new CacheTracker<>(guard), null);
    }
  }
}
