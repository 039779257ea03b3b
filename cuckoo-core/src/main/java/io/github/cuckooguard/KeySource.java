package io.github.cuckooguard;

import java.util.function.Consumer;

/**
 * The source of truth a {@link CuckooGuard} rebuilds its filter from: the key set of a cache, a
 * {@code select id} scan, a directory listing.
 *
 * <p>Contract. Call a key <em>tracked</em> from the moment {@link CuckooGuard#keyEntered} is
 * called for it until {@link CuckooGuard#keyLeft} is called for it. Then {@code forEachKey} must
 * emit:
 * <ol>
 *   <li>every key that was tracked when the call started and is still tracked when it returns,
 *       <b>including keys that are tracked but not yet visible at the source</b>: a row inserted
 *       by a transaction that has not committed yet, a cache entry whose compute has not returned
 *       yet. An adapter that reports keys before they become visible (as it must) keeps the set
 *       of such in-flight keys and emits a snapshot of it <em>first</em>, then scans the source;
 *   <li>in particular, every key present at the source for the whole call.
 * </ol>
 * A key that was present when the call started and is not emitted must have had its
 * {@code keyLeft} delivered to the guard before this method returns (e.g. a Caffeine source calls
 * {@code cache.cleanUp()} after iterating, so that expired-but-unremoved entries are evicted now).
 * Keys that enter during the call may or may not be emitted: the guard records those itself.
 * Emitting a key that is not tracked is harmless (a false positive until the next rebuild).
 *
 * <p>Why in-flight keys matter: the rebuilt filter learns a key either from this scan or from a
 * {@code keyEntered} made after the rebuild started. A key entered just before, and still
 * invisible while the scan passes it, would otherwise be in neither and become a false negative
 * once the new filter is swapped in.
 *
 * <p>The guard calls this method from its rebuild executor, holding no lock of its own, one call
 * at a time. The implementation must call {@code action} only before it returns; emitting
 * {@code null} fails the rebuild.
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
   * @throws Exception any failure; the rebuild then fails and the guard keeps its current filter
   *     in pass-through mode
   */
  void forEachKey(Consumer<? super K> action) throws Exception;
}
