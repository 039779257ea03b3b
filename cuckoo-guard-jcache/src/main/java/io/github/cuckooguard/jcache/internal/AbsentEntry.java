package io.github.cuckooguard.jcache.internal;

import java.util.Objects;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.MutableEntry;
import org.jspecify.annotations.Nullable;

/**
 * The entry an {@link EntryProcessor} sees when the guard knows its key is absent: the processor
 * runs here, in this process, instead of in the provider. What it leaves behind is {@link
 * #value()}: null if it wrote nothing (or removed what it wrote), which needs no round trip, else
 * the value the caller must create the entry with.
 *
 * <p>Not thread-safe; used by one invocation.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class AbsentEntry<K, V> implements MutableEntry<K, V> {

  private final K key;
  private @Nullable V value;

  private AbsentEntry(K key) {
    this.key = key;
  }

  /**
   * Runs {@code processor} on an absent entry for {@code key}, wrapping what it throws as the
   * JCache spec requires.
   *
   * @throws EntryProcessorException wrapping any exception of the processor
   */
  public static <K, V, T> Outcome<V, T> process(
      K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    AbsentEntry<K, V> entry = new AbsentEntry<>(key);
    T result;
    try {
      result = processor.process(entry, arguments);
    } catch (EntryProcessorException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new EntryProcessorException(e);
    }
    return new Outcome<>(entry.value, result);
  }

  /**
   * What a processor did to an absent entry.
   *
   * @param created the value to create the entry with, or null if it ends absent
   * @param result what the processor returned
   */
  public record Outcome<V, T>(@Nullable V created, @Nullable T result) {}

  @Override
  public K getKey() {
    return key;
  }

  @Override
  public @Nullable V getValue() {
    return value;
  }

  @Override
  public boolean exists() {
    return value != null;
  }

  @Override
  public void remove() {
    value = null;
  }

  @Override
  public void setValue(V value) {
    this.value = Objects.requireNonNull(value, "value");
  }

  @Override
  public <T> T unwrap(Class<T> clazz) {
    if (clazz.isInstance(this)) {
      return clazz.cast(this);
    }
    throw new IllegalArgumentException(
        "An absent entry evaluated by the guard cannot be unwrapped to " + clazz);
  }
}
