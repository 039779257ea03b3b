package io.github.cuckooguard;

import java.util.function.Consumer;

/**
 * The source of truth a {@link CuckooGuard} rebuilds its filter from: the key set of a cache, a
 * {@code select id} scan, a directory listing.
 *
 * <p>Contract: every key present for the whole call is emitted; a key present when the call
 * starts that is <b>not</b> emitted must have had its {@link CuckooGuard#keyLeft} delivered to the
 * guard before this method returns (e.g. a Caffeine source calls {@code cache.cleanUp()} after
 * iterating, so that expired-but-unremoved entries are evicted now). Keys that enter or leave
 * during the call may or may not be emitted. Emitting a key that is no longer present is harmless
 * (it costs a false positive until the next rebuild); emitting {@code null} fails the rebuild.
 *
 * <p>The guard calls this method from its rebuild executor, holding no lock, at most once at a
 * time. The implementation must call {@code action} only before it returns, and may call it from
 * the calling thread only.
 *
 * @param <K> the key type
 */
@FunctionalInterface
public interface KeySource<K> {

  /**
   * Emits every key in the tracked set to {@code action}.
   *
   * @param action receives each key; throws {@link IllegalStateException} if called after this
   *     method returned
   * @throws Exception any failure; the rebuild then fails and the guard keeps its current filter
   *     in pass-through mode
   */
  void forEachKey(Consumer<? super K> action) throws Exception;
}
