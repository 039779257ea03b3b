package io.github.cuckooguard.jcache.internal;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.cache.Cache;
import javax.cache.integration.CompletionListener;
import org.jspecify.annotations.Nullable;

/**
 * The calls of a guarded cache that may create entries: {@code put}, {@code getAndPut}, {@code
 * putAll}, {@code putIfAbsent}, {@code loadAll}. Each runs as a write of its keys ({@link
 * CacheGuard#beginWrite}); none is short-circuited.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Writes<K, V> {

  private final CacheContext<K, V> context;
  private final Cache<K, V> cache;
  private final CacheGuard<K> guard;

  public Writes(CacheContext<K, V> context) {
    this.context = context;
    this.cache = context.cache();
    this.guard = context.guard();
  }

  public void put(K key, V value) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value"); // before the write: a rejected call changes nothing
    if (guard.expiresBeforePut()) {
      cache.containsKey(key); // expires a mapping the put would drop without an event
    }
    if (guard.inGroup() && !context.statisticsEnabled()) {
      // In a group a write's enter ends on what the call says it did: getAndPut's old value says
      // whether it created the entry (a put's enter would otherwise stay as a spare copy when it
      // replaced). Statistics off, so the get it also is counts nowhere; writer, expiry and
      // events are those of a put.
      context.write(key, () -> cache.getAndPut(key, value), old -> true, old -> old == null);
      return;
    }
    context.write(
        key,
        () -> {
          cache.put(key, value);
          return Boolean.TRUE;
        },
        written -> true);
  }

  public @Nullable V getAndPut(K key, V value) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value"); // before the write: a rejected call changes nothing
    return context.write(key, () -> cache.getAndPut(key, value), old -> true, old -> old == null);
  }

  public void putAll(Map<? extends K, ? extends V> map) {
    context.requireOpen();
    Objects.requireNonNull(map, "map");
    CacheContext.requireNoNullKeys(map.keySet());
    for (V value : map.values()) {
      Objects.requireNonNull(value, "map contains a null value");
    }
    context.writeAll(
        map.keySet(),
        () -> {
          cache.putAll(map);
          return Boolean.TRUE;
        },
        (key, written) -> true);
  }

  public boolean putIfAbsent(K key, V value) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value"); // before the write: a rejected call changes nothing
    // true: created; false: the key was there
    return context.write(
        key, () -> cache.putIfAbsent(key, value), created -> true, created -> created);
  }

  /**
   * Loads through the wrapped cache as a write of each of {@code keys} until the provider reports
   * completion. Caffeine reports it before its Created events ran, so the writes end visible
   * whatever the events said ({@link CacheGuard#keepWrite}): a key that was not loaded, or whose
   * event came in time, then holds a spare copy until the next rebuild. A loader that returns keys
   * it was not asked for breaks this: such keys may be reported absent until their events ran (and
   * longer, if a rebuild's scan missed them).
   */
  public void loadAll(
      Set<? extends K> keys,
      boolean replaceExistingValues,
      @Nullable CompletionListener completionListener) {
    context.requireOpen();
    Objects.requireNonNull(keys, "keys");
    CacheContext.requireNoNullKeys(keys);
    List<CacheGuard.Write<K>> writes = context.beginAll(keys);
    AtomicBoolean ended = new AtomicBoolean();
    Runnable end =
        () -> {
          if (ended.compareAndSet(false, true)) {
            writes.forEach(guard::keepWrite);
          }
        };
    try {
      cache.loadAll(
          keys,
          replaceExistingValues,
          new CompletionListener() {
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
}
