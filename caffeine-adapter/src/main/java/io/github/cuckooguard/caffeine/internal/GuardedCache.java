package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.github.cuckooguard.CuckooGuard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A Caffeine {@link Cache} whose writes keep a {@link CuckooGuard} exactly in step with its keys,
 * and whose {@link #getIfPresent}/{@link #getAllPresent} skip the cache for keys the guard knows
 * are absent.
 *
 * <p>Reads of the map view, {@link #estimatedSize}, {@link #cleanUp} go straight to the raw cache.
 * Loads ({@link #get}, {@link #getAll}) never short-circuit: the function may find the key.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class GuardedCache<K, V> implements Cache<K, V> {

  final Cache<K, V> raw;
  final GuardedWrites<K, V> writes;
  final CuckooGuard<K> guard;
  private final GuardedMap<K, V> asMap;
  private final GuardedPolicy<K, V> policy;

  public GuardedCache(Cache<K, V> raw, GuardedWrites<K, V> writes) {
    this.raw = raw;
    this.writes = writes;
    this.guard = writes.guard();
    this.asMap = new GuardedMap<>(raw.asMap(), writes);
    this.policy = new GuardedPolicy<>(raw.policy(), writes);
  }

  @Override
  public @Nullable V getIfPresent(K key) {
    if (!guard.mightContain(requireNonNull(key, "key"))) {
      return null;
    }
    V value = raw.getIfPresent(key);
    if (value == null) {
      guard.reportFalsePositive(key);
    }
    return value;
  }

  @Override
  public @Nullable V get(K key, Function<? super K, ? extends @Nullable V> mappingFunction) {
    requireNonNull(key, "key");
    requireNonNull(mappingFunction, "mappingFunction");
    return writes.writing(() -> raw.get(key, writes.entering(mappingFunction)));
  }

  @Override
  public Map<K, V> getAllPresent(Iterable<? extends K> keys) {
    List<K> candidates = new ArrayList<>();
    for (K key : keys) {
      if (guard.mightContain(requireNonNull(key, "key"))) {
        candidates.add(key);
      }
    }
    if (candidates.isEmpty()) {
      return Collections.emptyMap();
    }
    Map<K, V> present = raw.getAllPresent(candidates);
    for (K key : candidates) {
      if (!present.containsKey(key)) {
        guard.reportFalsePositive(key);
      }
    }
    return present;
  }

  /**
   * Like Caffeine's: present entries, plus one call of {@code mappingFunction} for the missing
   * keys whose results are all stored (extra keys too). Unlike Caffeine's, each loaded entry is
   * stored through a per-key compute that enters its key, instead of a plain put after the fact;
   * with {@code recordStats()} each stored entry therefore counts as one load.
   */
  @Override
  public Map<K, V> getAll(Iterable<? extends K> keys,
      Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> mappingFunction) {
    requireNonNull(mappingFunction, "mappingFunction");
    Map<K, @Nullable V> result = new LinkedHashMap<>();
    for (K key : keys) {
      result.put(requireNonNull(key, "key"), null);
    }
    Map<K, V> present = raw.getAllPresent(result.keySet());
    Set<K> missing = new LinkedHashSet<>();
    for (Map.Entry<K, @Nullable V> entry : result.entrySet()) {
      V value = present.get(entry.getKey());
      if (value == null) {
        missing.add(entry.getKey());
      } else {
        entry.setValue(value);
      }
    }
    if (!missing.isEmpty()) {
      Map<? extends K, ? extends V> loaded = mappingFunction.apply(Collections.unmodifiableSet(missing));
      for (Map.Entry<? extends K, ? extends V> entry : loaded.entrySet()) {
        K key = requireNonNull(entry.getKey(), "mappingFunction returned a null key");
        V value = requireNonNull(entry.getValue(), "mappingFunction returned a null value");
        writes.put(key, value, false);
        if (missing.contains(key)) {
          result.put(key, value);
        }
      }
    }
    result.values().removeIf(v -> v == null);
    @SuppressWarnings("NullAway")
    Map<K, V> complete = Collections.unmodifiableMap(result);
    return complete;
  }

  @Override
  public void put(K key, V value) {
    writes.put(key, value, true);
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    map.forEach((key, value) -> writes.put(key, value, true));
  }

  @Override
  public void invalidate(K key) {
    writes.remove(key);
  }

  @Override
  public void invalidateAll(Iterable<? extends K> keys) {
    for (K key : keys) {
      writes.remove(key);
    }
  }

  @Override
  public void invalidateAll() {
    writes.clear();
  }

  @Override
  public long estimatedSize() {
    return raw.estimatedSize();
  }

  @Override
  public CacheStats stats() {
    return writes.synthetic().correct(raw.stats());
  }

  @Override
  public ConcurrentMap<K, V> asMap() {
    return asMap;
  }

  @Override
  public void cleanUp() {
    raw.cleanUp();
  }

  @Override
  public Policy<K, V> policy() {
    return policy;
  }

  @Override
  public String toString() {
    return "GuardedCache[" + guard.name() + ", " + raw + "]";
  }
}
