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
 * race). Where the guarded cache follows its own removals ({@link CacheGuard#callsFollowLeaves}: in
 * a guard group, and on providers whose creations report their events before returning) the
 * processor runs inside an {@link ExistenceProbe}: its key's leave is announced before the call,
 * and the entry's existence before and after the processor says exactly whether it created the
 * entry (the enter ends visible, else aborted) or removed it (the leave ends gone, else cancelled).
 * Elsewhere removals made by a processor are not followed (their fingerprints stay until a
 * rebuild).
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
      if (guard.callsFollowLeaves()) {
        return invokeProbed(key, entryProcessor, arguments);
      }
      return context.write(
          key, () -> cache.invoke(key, entryProcessor, arguments), r -> context.present(key));
    }
    return invokeAbsent(key, entryProcessor, arguments);
  }

  /**
   * The provider's invoke under an announced leave and a write, both ended by the probe's outcome.
   * Why the ends are paired: the leave is announced and the enter begun before the provider call,
   * and the probe reads existence inside the provider's atomic update, so "removed" means that this
   * call took a visible entry, whose creator's enter (begun before it was visible) owns a copy;
   * "created" means that this call made the entry visible, so its own enter becomes that copy.
   * Anything unknown (a failure, no outcome) keeps the enter and cancels the leave: a spare copy.
   */
  private <T> @Nullable T invokeProbed(
      K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    CacheGuard.Leave<K> leave = guard.announceLeave(key);
    CacheGuard.Write<K> write;
    try {
      write = guard.beginWrite(key);
    } catch (RuntimeException | Error e) {
      guard.endLeave(leave, false);
      throw e;
    }
    ExistenceProbe.Outcome<T> outcome;
    try {
      outcome = cache.invoke(key, new ExistenceProbe<>(processor), arguments);
    } catch (RuntimeException | Error e) {
      guard.keepWrite(write);
      guard.endLeave(leave, false);
      throw e;
    }
    if (outcome == null) {
      guard.keepWrite(write);
      guard.endLeave(leave, false);
      return null;
    }
    guard.endWrite(write, outcome.created(), () -> context.present(key));
    guard.endLeave(leave, outcome.removed(), 1); // its own write began after the leave
    return outcome.result();
  }

  /** {@link #invokeProbed} for several keys: one provider call, each key ended by its outcome. */
  private <T> Map<K, EntryProcessorResult<T>> invokeAllProbed(
      Set<? extends K> keys, EntryProcessor<K, V, T> processor, Object... arguments) {
    Map<K, CacheGuard.@Nullable Leave<K>> leaves = new HashMap<>();
    List<CacheGuard.Write<K>> writes;
    try {
      for (K key : keys) {
        leaves.put(key, guard.announceLeave(key));
      }
      writes = context.beginAll(keys);
    } catch (RuntimeException | Error e) {
      leaves.values().forEach(leave -> guard.endLeave(leave, false));
      throw e;
    }
    Map<K, EntryProcessorResult<ExistenceProbe.Outcome<T>>> outcomes;
    try {
      outcomes = cache.invokeAll(keys, new ExistenceProbe<>(processor), arguments);
    } catch (RuntimeException | Error e) {
      writes.forEach(guard::keepWrite);
      leaves.values().forEach(leave -> guard.endLeave(leave, false));
      throw e;
    }
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    for (CacheGuard.Write<K> write : writes) {
      K key = write.key();
      EntryProcessorResult<ExistenceProbe.Outcome<T>> raw = outcomes.get(key);
      ExistenceProbe.Outcome<T> outcome = null;
      if (raw != null) {
        try {
          outcome = raw.get();
        } catch (EntryProcessorException e) {
          results.put(
              key,
              () -> {
                throw e;
              });
        }
      }
      if (outcome == null) {
        guard.keepWrite(write);
        guard.endLeave(leaves.get(key), false);
        continue;
      }
      guard.endWrite(write, outcome.created(), () -> context.present(key));
      guard.endLeave(leaves.get(key), outcome.removed(), 1); // its own write began after it
      T result = outcome.result();
      if (result != null) {
        results.put(key, () -> result);
      }
    }
    return results;
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
      if (guard.callsFollowLeaves()) {
        return invokeAllProbed(keys, entryProcessor, arguments);
      }
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
    if (!maybe.isEmpty() && guard.callsFollowLeaves()) {
      results.putAll(invokeAllProbed(maybe, entryProcessor, arguments));
    } else if (!maybe.isEmpty()) {
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
