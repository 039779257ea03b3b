package io.github.cuckooguard.caffeine.internal;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The key, value and entry views of {@link GuardedMap}, defined in terms of the guarded map itself
 * (as {@link AbstractMap}'s views are): size, membership and {@code clear} are the map's; iteration
 * walks the raw entries, and every removal ({@code remove}, {@code removeIf}, {@code removeAll},
 * {@code retainAll}, {@code Iterator.remove}, which {@link AbstractCollection} routes through the
 * iterator or {@code remove}) and every {@code Entry.setValue} is a write of the guarded map, so it
 * goes through {@link GuardedWrites}.
 */
final class GuardedMapViews {

  private GuardedMapViews() {}

  /** Iterates the raw entries, yielding {@code project(entry)}; removal goes through the guard. */
  private static final class GuardedIterator<K, V, T> implements Iterator<T> {
    private final Iterator<Map.Entry<K, V>> raw;
    private final GuardedMap<K, V> owner;
    private final Function<Map.Entry<K, V>, T> project;
    private @Nullable K current;

    GuardedIterator(GuardedMap<K, V> owner, Function<Map.Entry<K, V>, T> project) {
      this.raw = owner.rawEntries();
      this.owner = owner;
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
        throw new IllegalStateException(
            "next() was not called, or remove() was already called for this element");
      }
      current = null;
      owner.remove(key);
    }
  }

  /** An entry whose {@code setValue} writes through the guard (like Caffeine's, it puts). */
  private static final class WriteThroughEntry<K, V> extends AbstractMap.SimpleEntry<K, V> {
    private static final long serialVersionUID = 1L;
    private final transient GuardedMap<K, V> owner;

    WriteThroughEntry(Map.Entry<K, V> entry, GuardedMap<K, V> owner) {
      super(entry.getKey(), entry.getValue());
      this.owner = owner;
    }

    @Override
    public V setValue(V value) {
      Objects.requireNonNull(value, "value");
      owner.put(getKey(), value);
      return super.setValue(value);
    }
  }

  /**
   * What every view shares: a projection of the guarded map's raw entries whose size, emptiness and
   * {@code clear} are the map's.
   *
   * @param <T> the element type, {@code project} of a raw entry
   */
  private abstract static class View<K, V, T> extends AbstractCollection<T> {
    final GuardedMap<K, V> owner;
    private final Function<Map.Entry<K, V>, T> project;

    View(GuardedMap<K, V> owner, Function<Map.Entry<K, V>, T> project) {
      this.owner = owner;
      this.project = project;
    }

    @Override
    public final Iterator<T> iterator() {
      return new GuardedIterator<>(owner, project);
    }

    @Override
    public final int size() {
      return owner.size();
    }

    @Override
    public final boolean isEmpty() {
      return owner.isEmpty();
    }

    @Override
    public final void clear() {
      owner.clear();
    }
  }

  /**
   * A view that is a {@link Set}: equality and hash code by the {@link Set} contract, and {@code
   * removeAll} removing each given element when that is fewer steps than a scan (both as {@link
   * java.util.AbstractSet} does).
   */
  private abstract static class SetView<K, V, T> extends View<K, V, T> implements Set<T> {

    SetView(GuardedMap<K, V> owner, Function<Map.Entry<K, V>, T> project) {
      super(owner, project);
    }

    @Override
    public final boolean equals(@Nullable Object o) {
      if (o == this) {
        return true;
      }
      if (!(o instanceof Set<?> other) || other.size() != size()) {
        return false;
      }
      try {
        return containsAll(other);
      } catch (ClassCastException | NullPointerException unused) {
        return false;
      }
    }

    @Override
    public final int hashCode() {
      int hash = 0;
      for (T element : this) {
        hash += Objects.hashCode(element);
      }
      return hash;
    }

    @Override
    public final boolean removeAll(Collection<?> c) {
      if (size() <= c.size()) {
        return super.removeAll(c);
      }
      boolean modified = false;
      for (Object element : c) {
        modified |= remove(element);
      }
      return modified;
    }
  }

  static final class KeySet<K, V> extends SetView<K, V, K> {

    KeySet(GuardedMap<K, V> owner) {
      super(owner, Map.Entry::getKey);
    }

    @Override
    public boolean contains(Object o) {
      return owner.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
      return owner.remove(o) != null;
    }
  }

  static final class Values<K, V> extends View<K, V, V> {

    Values(GuardedMap<K, V> owner) {
      super(owner, Map.Entry::getValue);
    }

    @Override
    public boolean contains(Object o) {
      return owner.containsValue(o);
    }
  }

  static final class EntrySet<K, V> extends SetView<K, V, Map.Entry<K, V>> {

    EntrySet(GuardedMap<K, V> owner) {
      super(owner, entry -> new WriteThroughEntry<>(entry, owner));
    }

    @Override
    public boolean contains(Object o) {
      if (!(o instanceof Map.Entry<?, ?> entry) || entry.getKey() == null) {
        return false;
      }
      Object value = owner.get(entry.getKey());
      return value != null && value.equals(entry.getValue());
    }

    @Override
    public boolean remove(Object o) {
      if (!(o instanceof Map.Entry<?, ?> entry) || entry.getKey() == null) {
        return false;
      }
      return owner.remove(entry.getKey(), entry.getValue());
    }
  }
}
