package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.LoadingCache;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A guarded {@link LoadingCache}. {@link #get} never short-circuits: the loader may find a key the
 * cache does not hold.
 *
 * <ul>
 *   <li>{@code get}, and {@code getAll} without a bulk loader: the user's {@code load} as the
 *       mapping function of the guarded compute ({@link GuardedWrites#computeIfAbsent}), which is
 *       what Caffeine's {@code get} runs too (same statistics), key by key as Caffeine's sequential
 *       {@code getAll} does.
 *   <li>{@code getAll} with a loader that overrides {@code loadAll}: Caffeine's bulk {@code getAll}
 *       with the user's {@code loadAll} ({@link GuardedCache#getAll}).
 *   <li>{@code refresh} of a present key: Caffeine's refresh with the user's reload, never an
 *       enter. Of an absent key: a guarded load ({@link #get}) on the calling thread, so the key
 *       enters inside the compute that inserts it (Caffeine would load on its executor and insert
 *       outside any hook).
 * </ul>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardedLoadingCache<K, V> extends GuardedCache<K, V>
    implements LoadingCache<K, V> {

  private final LoadingCache<K, V> loading;
  private final Function<K, @Nullable V> load;
  private final @Nullable Function<Set<? extends K>, Map<? extends K, ? extends V>> bulkLoad;

  public GuardedLoadingCache(
      LoadingCache<K, V> raw, GuardedWrites<K, V> writes, CacheLoader<? super K, V> userLoader) {
    super(raw, writes);
    this.loading = raw;
    this.load = key -> load(userLoader, key);
    this.bulkLoad = overridesLoadAll(userLoader) ? keys -> loadAll(userLoader, keys) : null;
  }

  @Override
  @SuppressWarnings(
      "NullAway") // Caffeine declares @PolyNull here (null in, null out); NullAway reads it as
  // non-null
  public @Nullable V get(K key) {
    return writes.computeIfAbsent(key, load);
  }

  @Override
  public Map<K, V> getAll(Iterable<? extends K> keys) {
    Function<Set<? extends K>, Map<? extends K, ? extends V>> bulk = bulkLoad;
    return bulk != null ? getAll(keys, bulk) : loadSequentially(keys);
  }

  /** Caffeine's sequential {@code getAll}, with the guarded {@link #get}. */
  private Map<K, V> loadSequentially(Iterable<? extends K> keys) {
    Map<K, @Nullable V> result = new LinkedHashMap<>();
    for (K key : keys) {
      result.put(requireNonNull(key, "key"), null);
    }
    int size = result.size();
    int count = 0;
    try {
      for (Iterator<Map.Entry<K, @Nullable V>> it = result.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<K, @Nullable V> entry = it.next();
        count++;
        V value = get(entry.getKey());
        if (value == null) {
          it.remove();
        } else {
          entry.setValue(value);
        }
      }
    } catch (RuntimeException | Error e) {
      missed(size - count); // as Caffeine counts the keys it did not get to
      throw e;
    }
    @SuppressWarnings("NullAway")
    Map<K, V> complete = Collections.unmodifiableMap(result);
    return complete;
  }

  @Override
  public CompletableFuture<V> refresh(K key) {
    requireNonNull(key, "key");
    if (raw.policy().getIfPresentQuietly(key) != null) {
      return loading.refresh(key);
    }
    try {
      return CompletableFuture.completedFuture(get(key));
    } catch (CompletionException e) {
      return CompletableFuture.failedFuture(e.getCause() != null ? e.getCause() : e);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Map<K, V>> refreshAll(Iterable<? extends K> keys) {
    Map<K, CompletableFuture<V>> futures = new LinkedHashMap<>();
    for (K key : keys) {
      futures.computeIfAbsent(requireNonNull(key, "key"), this::refresh);
    }
    return CompletableFuture.allOf(futures.values().toArray(CompletableFuture<?>[]::new))
        .thenApply(
            ignored -> {
              Map<K, V> result = new LinkedHashMap<>();
              futures.forEach(
                  (key, future) -> {
                    V value = future.join();
                    if (value != null) {
                      result.put(key, value);
                    }
                  });
              return Collections.unmodifiableMap(result);
            });
  }

  /** Calls the user's {@code load}, translating checked exceptions as Caffeine does. */
  private static <K, V> @Nullable V load(CacheLoader<? super K, V> loader, K key) {
    try {
      return loader.load(key);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  private static boolean overridesLoadAll(CacheLoader<?, ?> loader) {
    try {
      return loader.getClass().getMethod("loadAll", Set.class).getDeclaringClass()
          != CacheLoader.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** Calls the user's {@code loadAll}, translating checked exceptions as Caffeine does. */
  private static <K, V> Map<? extends K, ? extends V> loadAll(
      CacheLoader<? super K, V> loader, Set<? extends K> keys) {
    try {
      // Caffeine makes the same unchecked assumption: loadAll returns keys of the cache's type.
      @SuppressWarnings("unchecked")
      Map<? extends K, ? extends V> loaded = (Map<? extends K, ? extends V>) loader.loadAll(keys);
      return loaded;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }
}
