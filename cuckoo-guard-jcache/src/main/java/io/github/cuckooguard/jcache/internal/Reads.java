package io.github.cuckooguard.jcache.internal;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * The lookups of a guarded cache: {@code get}, {@code getAll}, {@code containsKey}. A key the guard
 * reports absent is not asked for; a key it reported "might contain" that the provider does not
 * hold is counted as a false positive. A read-through cache loads on a miss, so there the guard
 * answers nothing and the loads run as writes.
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Reads<K, V> {

  private final CacheContext<K, V> context;
  private final Cache<K, V> cache;
  private final CacheGuard<K> guard;

  public Reads(CacheContext<K, V> context) {
    this.context = context;
    this.cache = context.cache();
    this.guard = context.guard();
  }

  public @Nullable V get(K key) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    if (context.readThrough()) {
      return context.write(key, () -> cache.get(key), Objects::nonNull);
    }
    boolean guarded = context.guardAnswersReads();
    if (context.skipLookup(guarded, key)) {
      context.countMisses(1);
      return null;
    }
    V value = cache.get(key);
    if (value == null && guarded) {
      guard.absentAfterMaybe(key);
    }
    return value;
  }

  public Map<K, V> getAll(Set<? extends K> keys) {
    context.requireOpen();
    Objects.requireNonNull(keys, "keys");
    CacheContext.requireNoNullKeys(keys);
    if (context.readThrough()) {
      return context.writeAll(
          keys, () -> cache.getAll(keys), (key, found) -> found.containsKey(key));
    }
    if (!context.guardAnswersReads()) {
      return cache.getAll(keys);
    }
    Set<K> maybe = new LinkedHashSet<>();
    for (K key : keys) {
      if (guard.mightContain(key)) {
        maybe.add(key);
      }
    }
    context.countMisses(keys.size() - maybe.size());
    if (maybe.isEmpty()) {
      return new HashMap<>();
    }
    Map<K, V> found = cache.getAll(maybe.size() == keys.size() ? keys : maybe);
    for (K key : maybe) {
      if (!found.containsKey(key)) {
        guard.absentAfterMaybe(key);
      }
    }
    return found;
  }

  public boolean containsKey(K key) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    // containsKey counts neither hits nor misses (JSR-107 statistics): the guard answers it also
    // while statistics are on
    boolean guarded = true;
    if (context.skipLookup(guarded, key)) {
      return false;
    }
    boolean present = cache.containsKey(key);
    if (!present && guarded) {
      guard.absentAfterMaybe(key);
    }
    return present;
  }
}
