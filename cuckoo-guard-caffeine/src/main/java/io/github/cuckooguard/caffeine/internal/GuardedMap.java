package io.github.cuckooguard.caffeine.internal;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@code asMap()} view of a guarded cache: reads go to the raw map, every write goes through
 * {@link GuardedWrites}, and the key, value and entry views remove (also through their iterators)
 * and {@code setValue} through it as well.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class GuardedMap<K, V> implements ConcurrentMap<K, V> {

  private final ConcurrentMap<K, V> map;
  private final GuardedWrites<K, V> writes;
  private final Set<K> keySet;
  private final Collection<V> values;
  private final Set<Map.Entry<K, V>> entrySet;

  GuardedMap(ConcurrentMap<K, V> map, GuardedWrites<K, V> writes) {
    this.map = map;
    this.writes = writes;
    this.keySet = new GuardedMapViews.KeySet<>(this);
    this.values = new GuardedMapViews.Values<>(this);
    this.entrySet = new GuardedMapViews.EntrySet<>(this);
  }

  /** The raw map's entry iterator, which the views walk (their removals come back here). */
  Iterator<Map.Entry<K, V>> rawEntries() {
    return map.entrySet().iterator();
  }

  // ---- reads: straight to the cache ----

  @Override
  public int size() {
    return map.size();
  }

  @Override
  public boolean isEmpty() {
    return map.isEmpty();
  }

  @Override
  public boolean containsKey(Object key) {
    return map.containsKey(key);
  }

  @Override
  public boolean containsValue(Object value) {
    return map.containsValue(value);
  }

  @Override
  public @Nullable V get(Object key) {
    return map.get(key);
  }

  @Override
  public V getOrDefault(Object key, V defaultValue) {
    return map.getOrDefault(key, defaultValue);
  }

  @Override
  public void forEach(BiConsumer<? super K, ? super V> action) {
    map.forEach(action);
  }

  // ---- writes: through the guard ----

  @Override
  public @Nullable V put(K key, V value) {
    return writes.put(key, value);
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    m.forEach((key, value) -> writes.put(key, value));
  }

  @Override
  public @Nullable V putIfAbsent(K key, V value) {
    return writes.putIfAbsent(key, value);
  }

  @Override
  public @Nullable V remove(Object key) {
    return writes.remove(key);
  }

  @Override
  public boolean remove(Object key, Object value) {
    return writes.remove(key, value);
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    return writes.replace(key, oldValue, newValue);
  }

  @Override
  public @Nullable V replace(K key, V value) {
    return writes.replace(key, value);
  }

  @Override
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    writes.replaceAll(function);
  }

  @Override
  public @Nullable V computeIfAbsent(
      K key, Function<? super K, ? extends @Nullable V> mappingFunction) {
    return writes.computeIfAbsent(key, mappingFunction);
  }

  @Override
  public @Nullable V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends @Nullable V> remappingFunction) {
    return writes.computeIfPresent(key, remappingFunction);
  }

  @Override
  public @Nullable V compute(
      K key, BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> remappingFunction) {
    return writes.compute(key, remappingFunction);
  }

  @Override
  public @Nullable V merge(
      K key, V value, BiFunction<? super V, ? super V, ? extends @Nullable V> remappingFunction) {
    return writes.merge(key, value, remappingFunction);
  }

  @Override
  public void clear() {
    writes.clear();
  }

  // ---- views ----

  @Override
  public Set<K> keySet() {
    return keySet;
  }

  @Override
  public Collection<V> values() {
    return values;
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return entrySet;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o == this || map.equals(o);
  }

  @Override
  public int hashCode() {
    return map.hashCode();
  }

  @Override
  public String toString() {
    return map.toString();
  }
}
