package io.github.cuckooguard.jcache.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import org.jspecify.annotations.Nullable;

/**
 * Entry processors on a guarded cache. A processor may create the entry, so it runs as a write of
 * its key ({@link CacheGuard}). On a key the guard reports absent (and no loader, writer or
 * statistics must see the call) it runs here against an {@link AbsentEntry}, and the provider is
 * asked only if the processor created the entry: then as {@code putIfAbsent}, falling back to the
 * provider's {@code invoke} if the key appeared meanwhile (so the processor may run twice in that
 * race). Removals made by a processor are not followed (their fingerprints stay until a rebuild).
 *
 * <p>Thread safety: all methods may be called concurrently.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Processors<K, V> {

  private final CacheContext<K, V> context;
  private final Cache<K, V> cache;
  private final CacheGuard<K> guard;

  public Processors(CacheContext<K, V> context) {
    this.context = context;
    this.cache = context.cache();
    this.guard = context.guard();
  }

  public <T> @Nullable T invoke(
      K key, EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
    context.requireOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(entryProcessor, "entryProcessor");
    if (!context.guardAnswersInvoke() || guard.mightContain(key)) {
      return context.write(
          key, () -> cache.invoke(key, entryProcessor, arguments), r -> context.present(key));
    }
    return invokeAbsent(key, entryProcessor, arguments);
  }

  private <T> @Nullable T invokeAbsent(
      K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    AbsentEntry.Outcome<V, T> outcome = AbsentEntry.process(key, processor, arguments);
    V created = outcome.created();
    if (created == null) {
      return outcome.result();
    }
    return context.write(
        key,
        () ->
            cache.putIfAbsent(key, created)
                ? outcome.result()
                : cache.invoke(key, processor, arguments),
        r -> context.present(key));
  }

  public <T> Map<K, EntryProcessorResult<T>> invokeAll(
      Set<? extends K> keys, EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
    context.requireOpen();
    Objects.requireNonNull(keys, "keys");
    CacheContext.requireNoNullKeys(keys);
    Objects.requireNonNull(entryProcessor, "entryProcessor");
    if (!context.guardAnswersInvoke()) {
      return context.writeAll(
          keys,
          () -> cache.invokeAll(keys, entryProcessor, arguments),
          (key, results) -> context.present(key));
    }
    Set<K> maybe = new LinkedHashSet<>();
    List<K> absent = new ArrayList<>();
    for (K key : keys) {
      if (guard.mightContain(key)) {
        maybe.add(key);
      } else {
        absent.add(key);
      }
    }
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    if (!maybe.isEmpty()) {
      results.putAll(
          context.writeAll(
              maybe,
              () -> cache.invokeAll(maybe, entryProcessor, arguments),
              (key, r) -> context.present(key)));
    }
    for (K key : absent) {
      try {
        T result = invokeAbsent(key, entryProcessor, arguments);
        if (result != null) {
          results.put(key, () -> result);
        }
      } catch (EntryProcessorException e) {
        results.put(
            key,
            () -> {
              throw e;
            });
      }
    }
    return results;
  }
}
