package io.github.cuckooguard;

import java.util.function.Consumer;

/**
 * The source of truth a {@link CuckooGuard} rebuilds its filter from: the key set of a cache, a
 * {@code select id} scan, a directory listing.
 *
 * <p>Contract. {@code forEachKey} must emit
 *
 * <ol>
 *   <li>every key that is visible at the source for the whole call (a plain scan does this: the
 *       weakly consistent iterator of a {@code ConcurrentHashMap} key set, a {@code select id}
 *       scan), and
 *   <li>every key that is tracked but hidden from the source's iterator for the whole call, if the
 *       source has such keys (a Caffeine cache's expired entries that are not evicted yet: emit
 *       them, or evict them through the guard before returning).
 * </ol>
 *
 * That is all. Keys whose enter or leave is in flight (begun with {@link CuckooGuard#beginEnter} or
 * {@link CuckooGuard#beginLeave} and not ended) are the guard's business: it hands them to the new
 * filter itself. Keys that change during the call may or may not be emitted. Emitting a key that is
 * not tracked is harmless (a false positive until the next rebuild); emitting a key twice stores a
 * spare fingerprint (the same).
 *
 * <p>This relies on the adapter's half of the write protocol ({@link CuckooGuard}): every enter
 * begun before its key becomes visible and ended after, every leave announced before its removal
 * and ended after the key is gone (or reported with {@link CuckooGuard#keyLeft} inside the atomic
 * removal).
 *
 * <p>The guard calls this method from its rebuild executor, holding no lock of its own, one call at
 * a time. The implementation must call {@code action} only before it returns; emitting {@code null}
 * fails the rebuild.
 *
 * @param <K> the key type
 */
@FunctionalInterface
public interface KeySource<K> {

  /**
   * Emits every tracked key (see the interface comment) to {@code action}.
   *
   * @param action receives each key; throws {@link IllegalStateException} if called after this
   *     method returned
   * @throws Exception any failure; the rebuild then fails and the guard keeps its current filter in
   *     pass-through mode
   */
  void forEachKey(Consumer<? super K> action) throws Exception;
}
