package io.github.cuckooguard.jcache.internal;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * What every operation of a guarded cache needs: the wrapped cache, its guard, the modes that
 * decide whether the guard may answer a call, the argument checks the provider would make, and how
 * a call that may create entries runs as a write ({@link CacheGuard} explains it).
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class CacheContext<K, V> {

  private final Cache<K, V> cache;
  private final CacheGuard<K> guard;
  private final boolean readThrough;
  private final boolean writeThrough;
  private volatile boolean statisticsEnabled;

  /**
   * Counts skipped lookups as misses in the provider's statistics; null if the provider has none we
   * know.
   */
  private final @Nullable MissCounter missCounter;

  public CacheContext(Cache<K, V> cache, CacheGuard<K> guard) {
    this.cache = cache;
    this.guard = guard;
    CompleteConfiguration<?, ?> config = completeConfiguration(cache);
    this.readThrough = config == null || config.isReadThrough();
    this.writeThrough = config == null || config.isWriteThrough();
    this.statisticsEnabled = config == null || config.isStatisticsEnabled();
    this.missCounter = MissCounter.of(cache);
  }

  @SuppressWarnings("unchecked")
  private static @Nullable CompleteConfiguration<?, ?> completeConfiguration(Cache<?, ?> cache) {
    try {
      return cache.getConfiguration(CompleteConfiguration.class);
    } catch (IllegalArgumentException e) {
      return null; // unknown configuration: assume read-through, write-through and statistics
    }
  }

  /** The wrapped cache. */
  public Cache<K, V> cache() {
    return cache;
  }

  public CacheGuard<K> guard() {
    return guard;
  }

  public boolean readThrough() {
    return readThrough;
  }

  public boolean writeThrough() {
    return writeThrough;
  }

  public boolean statisticsEnabled() {
    return statisticsEnabled;
  }

  /** Statistics were switched through the guarded manager. */
  public void statisticsEnabled(boolean enabled) {
    this.statisticsEnabled = enabled;
  }

  /**
   * Whether a lookup-only call ({@code get}, {@code getAll}) may be answered by the guard: not for
   * read-through, and while statistics are on only if its misses can be counted in the provider's
   * statistics ({@link #countMisses}).
   */
  boolean guardAnswersReads() {
    return !readThrough && (!statisticsEnabled || missCounter != null);
  }

  /**
   * Counts {@code count} lookups the guard answered "absent" as misses of the provider's
   * statistics.
   */
  void countMisses(long count) {
    MissCounter counter = missCounter;
    if (counter != null && statisticsEnabled) {
      counter.misses(count);
    }
  }

  /** Whether a removal of an absent key may be answered by the guard. */
  boolean guardAnswersRemovals() {
    return !writeThrough && !statisticsEnabled;
  }

  /** Whether an entry processor on an absent key may run here: no loader or writer must see it. */
  boolean guardAnswersInvoke() {
    return !readThrough && !writeThrough && !statisticsEnabled;
  }

  /**
   * True if the guard may answer a lookup ({@code get}, {@code getAll}) and says {@code key} is
   * absent. Kept to one filter lookup: this is the short-circuit's hot path.
   */
  boolean skipLookup(boolean guardAnswers, K key) {
    return guardAnswers && !guard.mightContain(key);
  }

  /**
   * True if the guard may answer a removal or replace and says {@code key} is absent. Going to the
   * provider is always exact, so any doubt sends the call there: on a provider whose misses cannot
   * be counted here, statistics switched on by another wrapper of the same cache (or by the
   * provider's own manager) are read from the cache's configuration before such a call is answered,
   * and from then on this wrapper counts them as on.
   */
  boolean skip(boolean guardAnswers, K key) {
    if (!guardAnswers || guard.mightContain(key)) {
      return false;
    }
    if (missCounter == null && !statisticsEnabled && statisticsOnInProvider()) {
      statisticsEnabled = true;
      return false;
    }
    return true;
  }

  private boolean statisticsOnInProvider() {
    try {
      CompleteConfiguration<?, ?> config = completeConfiguration(cache);
      return config == null || config.isStatisticsEnabled();
    } catch (RuntimeException e) {
      return true; // cannot tell (e.g. the cache closed meanwhile): let the provider answer
    }
  }

  void requireOpen() {
    if (cache.isClosed()) {
      throw new IllegalStateException("Cache '" + cache.getName() + "' is closed");
    }
  }

  static <K> void requireNoNullKeys(Collection<? extends K> keys) {
    for (K key : keys) {
      Objects.requireNonNull(key, "keys contains a null key");
    }
  }

  /** Whether the wrapped cache holds {@code key} now; false if it cannot tell. */
  boolean present(K key) {
    return !cache.isClosed() && cache.containsKey(key);
  }

  // ---- writes ----

  /**
   * Runs {@code call}, which may create {@code key}'s entry, as a write of the key ({@link
   * CacheGuard#beginWrite}).
   *
   * @param leftPresent tells from the call's result whether the key is in the cache now; asked only
   *     when {@link CacheGuard#endWrite} must know
   */
  <T> T write(K key, Supplier<T> call, Predicate<? super T> leftPresent) {
    CacheGuard.Write<K> write = guard.beginWrite(key);
    T result;
    try {
      result = call.get();
    } catch (RuntimeException | Error e) {
      guard.keepWrite(write);
      throw e;
    }
    guard.endWrite(write, () -> leftPresent.test(result));
    return result;
  }

  /**
   * As {@link #write(Object, Supplier, Predicate)} for a call whose result says exactly whether it
   * created the entry ({@code putIfAbsent}, {@code getAndPut}).
   *
   * @param created tells from the call's result whether the call created the entry
   */
  <T> T write(
      K key, Supplier<T> call, Predicate<? super T> leftPresent, Predicate<? super T> created) {
    CacheGuard.Write<K> write = guard.beginWrite(key);
    T result;
    try {
      result = call.get();
    } catch (RuntimeException | Error e) {
      guard.keepWrite(write);
      throw e;
    }
    guard.endWrite(write, created.test(result), () -> leftPresent.test(result));
    return result;
  }

  /** Runs {@code call}, which may create entries of {@code keys}, as a write of every key. */
  <T> T writeAll(
      Collection<? extends K> keys, Supplier<T> call, KeyPresence<K, ? super T> leftPresent) {
    List<CacheGuard.Write<K>> writes = beginAll(keys);
    T result;
    try {
      result = call.get();
    } catch (RuntimeException | Error e) {
      writes.forEach(guard::keepWrite);
      throw e;
    }
    for (CacheGuard.Write<K> write : writes) {
      guard.endWrite(write, () -> leftPresent.test(write.key(), result));
    }
    return result;
  }

  /** Begins a write of every one of {@code keys}. */
  List<CacheGuard.Write<K>> beginAll(Collection<? extends K> keys) {
    return guard.beginWrites(keys);
  }

  /**
   * Whether a multi-key call left one of its keys in the cache, told from the key and the result.
   */
  @FunctionalInterface
  interface KeyPresence<K, T> {
    boolean test(K key, T result);
  }
}
