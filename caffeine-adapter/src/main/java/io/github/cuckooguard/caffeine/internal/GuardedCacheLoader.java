package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.CacheLoader;
import io.github.cuckooguard.CuckooGuard;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The loader a guarded {@code LoadingCache} is built with, around the user's.
 *
 * <ul>
 *   <li>{@link #load}: Caffeine calls it only inside the per-key compute of {@code get} (and of
 *       the per-key loads of {@code getAll}); a non-null value enters its key before the entry is
 *       published.
 *   <li>{@link #reload}, {@link #asyncReload}: a refresh of a present entry replaces its value
 *       (or, if it returns null, removes the entry as EXPLICIT without an eviction event: the
 *       fingerprint then leaks until the next rebuild, which is safe). Never an enter.
 *   <li>{@link #asyncLoad}: Caffeine calls it only for {@code refresh} of an absent key, whose
 *       result it would then insert outside every hook. {@link GuardedLoadingCache#refresh}
 *       loads absent keys itself, so this is reached only when the key vanished between that
 *       check and Caffeine's own; it yields null, so Caffeine inserts nothing (as for a reload
 *       that loses a race with a removal).
 *   <li>{@code loadAll} is deliberately not overridden, so Caffeine loads key by key through
 *       {@link #load}; {@link GuardedLoadingCache#getAll} uses the user's bulk load itself.
 * </ul>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardedCacheLoader<K, V> implements CacheLoader<K, V> {

  private final CacheLoader<? super K, V> user;
  private volatile @Nullable CuckooGuard<K> guard;

  public GuardedCacheLoader(CacheLoader<? super K, V> user) {
    this.user = Objects.requireNonNull(user, "loader");
  }

  public CacheLoader<? super K, V> user() {
    return user;
  }

  public void attach(CuckooGuard<K> guard) {
    this.guard = guard;
  }

  @Override
  public @Nullable V load(K key) throws Exception {
    V value = user.load(key);
    if (value != null) {
      Objects.requireNonNull(guard, "loader used before the guard was attached").keyEntered(key);
    }
    return value;
  }

  @Override
  public CompletableFuture<? extends @Nullable V> asyncLoad(K key, Executor executor) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public @Nullable V reload(K key, V oldValue) throws Exception {
    return user.reload(key, oldValue);
  }

  @Override
  public CompletableFuture<? extends @Nullable V> asyncReload(K key, V oldValue, Executor executor)
      throws Exception {
    return user.asyncReload(key, oldValue, executor);
  }
}
