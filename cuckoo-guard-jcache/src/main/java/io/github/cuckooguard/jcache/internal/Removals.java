package io.github.cuckooguard.jcache.internal;

import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * The calls of a guarded cache that never create entries: removals and replacements. On a key the
 * guard reports absent they return without the provider (unless a writer or statistics must see the
 * call). Where the provider's own events are followed ({@link CaffeineRemovals}, {@link
 * EhcacheRemovals}) every removal leaves the guard there, and nothing here announces a leave.
 * Elsewhere a removal of one key that reports what it removed ({@code remove}, {@code remove(key,
 * value)}, {@code getAndRemove}) is followed by the guard where that is safe ({@link
 * CacheGuard#callsFollowLeaves}: in a guard group, on every member; on providers whose creations
 * report their events before returning), and so is {@code removeAll(keys)} without a writer and
 * with statistics off, key by key; {@code removeAll()} and {@code clear} make the guard rebuild.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Removals<K, V> {

  private final CacheContext<K, V> context;
  private final Cache<K, V> cache;
  private final CacheGuard<K> guard;

  public Removals(CacheContext<K, V> context) {
    this.context = context;
    this.cache = context.cache();
    this.guard = context.guard();
  }

  /** Runs a removal of {@code key} under an announced leave; {@code removed} reads its result. */
  private <T> T leaving(K key, Supplier<T> call, Predicate<? super T> removed) {
    CacheGuard.Leave<K> leave = guard.announceLeave(key);
    T result;
    try {
      result = call.get();
    } catch (RuntimeException | Error e) {
      guard.endLeave(leave, false);
      throw e;
    }
    guard.endLeave(leave, removed.test(result));
    return result;
  }

  public boolean remove(K key) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    boolean guarded = context.guardAnswersRemovals();
    if (context.skip(guarded, key)) {
      return false;
    }
    boolean removed = leaving(key, () -> cache.remove(key), Boolean::booleanValue);
    if (!removed && guarded) {
      guard.absentAfterMaybe(key);
    }
    return removed;
  }

  public boolean remove(K key, V oldValue) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(oldValue, "oldValue");
    // the writer is only called when the entry is removed, so write-through does not matter
    return !context.skip(!context.statisticsEnabled(), key)
        && leaving(key, () -> cache.remove(key, oldValue), Boolean::booleanValue);
  }

  public @Nullable V getAndRemove(K key) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    boolean guarded = context.guardAnswersRemovals();
    if (context.skip(guarded, key)) {
      return null;
    }
    V value = leaving(key, () -> cache.getAndRemove(key), Objects::nonNull);
    if (value == null && guarded) {
      guard.absentAfterMaybe(key);
    }
    return value;
  }

  public boolean replace(K key, V oldValue, V newValue) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(oldValue, "oldValue");
    Objects.requireNonNull(newValue, "newValue");
    return !context.skip(!context.statisticsEnabled(), key)
        && cache.replace(key, oldValue, newValue);
  }

  public boolean replace(K key, V value) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return !context.skip(!context.statisticsEnabled(), key) && cache.replace(key, value);
  }

  public @Nullable V getAndReplace(K key, V value) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    return context.skip(!context.statisticsEnabled(), key) ? null : cache.getAndReplace(key, value);
  }

  public void removeAll(Set<? extends K> keys) {
    context.requireOpen();
    Objects.requireNonNull(keys, "keys");
    CacheContext.requireNoNullKeys(keys);
    if (!context.guardAnswersRemovals()) {
      cache.removeAll(keys);
      return;
    }
    Set<K> maybe = new LinkedHashSet<>();
    for (K key : keys) {
      if (guard.mightContain(key)) {
        maybe.add(key);
      }
    }
    if (maybe.isEmpty()) {
      return;
    }
    if (guard.callsFollowLeaves()) {
      // One removal per key, each under its own announced leave and ended by its own result, so
      // that a leave is completed only for a key this call removed. Without a writer and with
      // statistics off (guardAnswersRemovals) that is what removeAll does, key by key: the same
      // Removed events, nothing counted.
      for (K key : maybe) {
        leaving(key, () -> cache.remove(key), Boolean::booleanValue);
      }
      return;
    }
    cache.removeAll(maybe.size() == keys.size() ? keys : maybe);
  }

  /**
   * Removes every entry. Where the provider's own events are not followed, the guard then answers
   * "might be present" until a rebuild has read the cache again, which drops the removed keys'
   * fingerprints (marked once the removal is visible, the core's rule for stale guards).
   */
  public void removeAll() {
    cache.removeAll();
    if (!guard.followsRemovals()) {
      guard.guard().markStale("removeAll() of cache '" + cache.getName() + "'");
    }
  }

  /**
   * Removes every entry without events, as the wrapped cache does; the guard then answers "might be
   * present" until a rebuild has read the (now empty) cache, which also drops the fingerprints of
   * the cleared keys.
   */
  public void clear() {
    cache.clear();
    guard.guard().markStale("clear() of cache '" + cache.getName() + "'");
  }
}
