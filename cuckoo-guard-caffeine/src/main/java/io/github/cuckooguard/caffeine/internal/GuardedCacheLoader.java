package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.CacheLoader;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The loader a guarded {@code LoadingCache} is built with, around the user's. Caffeine needs one
 * for refreshes; loads do not go through it.
 *
 * <ul>
 *   <li>{@link #reload}, {@link #asyncReload}: a refresh of a present entry replaces its value (or,
 *       if it returns null, removes the entry as EXPLICIT without an eviction event: the
 *       fingerprint then leaks until the next rebuild, which is safe). Never an enter.
 *   <li>{@link #asyncLoad}: Caffeine calls it only for {@code refresh} of an absent key, whose
 *       result it would then insert outside every hook. {@link GuardedLoadingCache#refresh} loads
 *       absent keys itself, so this is reached only when the key vanished between that check and
 *       Caffeine's own; it yields null, so Caffeine inserts nothing (as for a reload that loses a
 *       race with a removal).
 *   <li>{@link #load}: never called. {@link GuardedLoadingCache#get} and {@code getAll} run the
 *       user's loader in the adapter's own compute, where the enter can be ended once Caffeine has
 *       published the entry; {@code loadAll} is deliberately not overridden, so Caffeine has no
 *       bulk path of its own either.
 * </ul>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardedCacheLoader<K, V> implements CacheLoader<K, V> {

  private final CacheLoader<? super K, V> user;

  public GuardedCacheLoader(CacheLoader<? super K, V> user) {
    this.user = Objects.requireNonNull(user, "loader");
  }

  /**
   * Fails: loads of a guarded cache run in the adapter's compute. A Caffeine version that called
   * this from a path the adapter does not know would get an error instead of an entry the filter
   * could miss.
   */
  @Override
  public V load(K key) {
    throw new IllegalStateException(
        "Caffeine loaded "
            + key
            + " through a path the Cuckoo guard does not"
            + " follow; the load is refused so that the filter cannot miss the entry. Please report this"
            + " with your Caffeine version");
  }

  @Override
  public CompletableFuture<? extends @Nullable V> asyncLoad(K key, Executor executor) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  @SuppressWarnings(
      "NullAway") // CacheLoader.reload may return null (removes the entry); Caffeine 3.3 declares
  // it non-null
  public @Nullable V reload(K key, V oldValue) throws Exception {
    return user.reload(key, oldValue);
  }

  @Override
  public CompletableFuture<? extends @Nullable V> asyncReload(K key, V oldValue, Executor executor)
      throws Exception {
    return user.asyncReload(key, oldValue, executor);
  }
}
