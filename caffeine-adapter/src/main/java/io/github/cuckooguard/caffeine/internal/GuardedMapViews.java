package io.github.cuckooguard.caffeine.internal;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The key, value and entry views of {@link GuardedMap}. Size and membership come from the raw
 * map; iteration walks the raw map, and every removal ({@code remove}, {@code removeIf},
 * {@code removeAll}, {@code retainAll}, {@code clear}, {@code Iterator.remove}, all of which the
 * {@code Abstract*} bases route through the iterator or {@code remove}) and every
 * {@code Entry.setValue} goes through {@link GuardedWrites}.
 */
final class GuardedMapViews {

  private GuardedMapViews() {}

  /** Iterates the raw entries, yielding {@code project(entry)}; removal goes through the guard. */
  private static final class GuardedIterator<K, V, T> implements Iterator<T> {
    private final Iterator<Map.Entry<K, V>> raw;
    private final GuardedWrites<K, V> writes;
    private final Function<Map.Entry<K, V>, T> project;
    private @Nullable K current;

    GuardedIterator(ConcurrentMap<K, V> map, GuardedWrites<K, V> writes, Function<Map.Entry<K, V>, T> project) {
      this.raw = map.entrySet().iterator();
      this.writes = writes;
      this.project = project;
    }

    @Override
    public boolean hasNext() {
      return raw.hasNext();
    }

    @Override
    public T next() {
      Map.Entry<K, V> entry = raw.next();
      current = entry.getKey();
      return project.apply(entry);
    }

    @Override
    public void remove() {
      K key = current;
      if (key == null) {
        throw new IllegalStateException("next() was not called, or remove() was already called for this element");
      }
      current = null;
      writes.remove(key);
    }
  }

  /** An entry whose {@code setValue} writes through the guard (like Caffeine's, it puts). */
  private static final class WriteThroughEntry<K, V> extends AbstractMap.SimpleEntry<K, V> {
    private static final long serialVersionUID = 1L;
    private final transient GuardedWrites<K, V> writes;

    WriteThroughEntry(Map.Entry<K, V> entry, GuardedWrites<K, V> writes) {
      super(entry.getKey(), entry.getValue());
      this.writes = writes;
    }

    @Override
    public V setValue(V value) {
      Objects.requireNonNull(value, "value");
      writes.put(getKey(), value, true);
      return super.setValue(value);
    }
  }

  static final class KeySet<K, V> extends AbstractSet<K> {
    private final ConcurrentMap<K, V> map;
    private final GuardedWrites<K, V> writes;

    KeySet(ConcurrentMap<K, V> map, GuardedWrites<K, V> writes) {
      this.map = map;
      this.writes = writes;
    }

    @Override
    public Iterator<K> iterator() {
      return new GuardedIterator<>(map, writes, Map.Entry::getKey);
    }

    @Override
    public int size() {
      return map.size();
    }

    @Override
    public boolean isEmpty() {
      return map.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
      return map.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
      return writes.remove(o) != null;
    }

    @Override
    public void clear() {
      writes.clear();
    }
  }

  static final class Values<K, V> extends AbstractCollection<V> {
    private final ConcurrentMap<K, V> map;
    private final GuardedWrites<K, V> writes;

    Values(ConcurrentMap<K, V> map, GuardedWrites<K, V> writes) {
      this.map = map;
      this.writes = writes;
    }

    @Override
    public Iterator<V> iterator() {
      return new GuardedIterator<>(map, writes, Map.Entry::getValue);
    }

    @Override
    public int size() {
      return map.size();
    }

    @Override
    public boolean isEmpty() {
      return map.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
      return map.containsValue(o);
    }

    @Override
    public void clear() {
      writes.clear();
    }
  }

  static final class EntrySet<K, V> extends AbstractSet<Map.Entry<K, V>> {
    private final ConcurrentMap<K, V> map;
    private final GuardedWrites<K, V> writes;

    EntrySet(ConcurrentMap<K, V> map, GuardedWrites<K, V> writes) {
      this.map = map;
      this.writes = writes;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
      return new GuardedIterator<>(map, writes, entry -> new WriteThroughEntry<>(entry, writes));
    }

    @Override
    public int size() {
      return map.size();
    }

    @Override
    public boolean isEmpty() {
      return map.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
      if (!(o instanceof Map.Entry<?, ?> entry) || entry.getKey() == null) {
        return false;
      }
      Object value = map.get(entry.getKey());
      return value != null && value.equals(entry.getValue());
    }

    @Override
    public boolean remove(Object o) {
      if (!(o instanceof Map.Entry<?, ?> entry) || entry.getKey() == null) {
        return false;
      }
      return writes.remove(entry.getKey(), entry.getValue());
    }

    @Override
    public void clear() {
      writes.clear();
    }
  }
}
