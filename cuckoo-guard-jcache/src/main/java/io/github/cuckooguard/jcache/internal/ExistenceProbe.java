package io.github.cuckooguard.jcache.internal;

import java.io.Serial;
import java.io.Serializable;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;
import org.jspecify.annotations.Nullable;

/**
 * Runs an application's entry processor and reports, besides its result, whether the entry existed
 * before and after it: the guarded cache then knows exactly whether the call created the entry (its
 * enter ends visible, else it is aborted) or removed it (its announced leave ends gone, else
 * cancelled). {@link MutableEntry#exists()} is read where the provider runs the processor, inside
 * its atomic update of the entry (a Hazelcast member's partition thread, Caffeine's compute); it
 * counts no statistics and is no access. Serializable, as distributed providers ship processors to
 * the entry's owner (the application's processor must then be serializable too, as it must be
 * without the guard).
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <T> the application processor's result type
 */
final class ExistenceProbe<K, V, T>
    implements EntryProcessor<K, V, ExistenceProbe.Outcome<T>>, Serializable {

  @Serial private static final long serialVersionUID = 1L;

  private final EntryProcessor<K, V, T> processor;

  ExistenceProbe(EntryProcessor<K, V, T> processor) {
    this.processor = processor;
  }

  @Override
  public Outcome<T> process(MutableEntry<K, V> entry, Object... arguments) {
    boolean before = entry.exists();
    T result = processor.process(entry, arguments);
    return new Outcome<>(result, before, entry.exists());
  }

  /**
   * What the processor returned, and whether the entry existed before and after it.
   *
   * @param <T> the result type
   */
  record Outcome<T>(@Nullable T result, boolean before, boolean after) implements Serializable {
    @Serial private static final long serialVersionUID = 1L;

    /** The processor created the entry. */
    boolean created() {
      return !before && after;
    }

    /** The processor removed the entry. */
    boolean removed() {
      return before && !after;
    }
  }
}
