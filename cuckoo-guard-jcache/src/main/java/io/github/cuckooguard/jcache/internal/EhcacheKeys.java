package io.github.cuckooguard.jcache.internal;

import java.lang.reflect.Field;
import java.util.function.Consumer;
import javax.cache.Cache;
import org.ehcache.core.EhcacheBase;
import org.ehcache.core.spi.store.Store;
import org.ehcache.spi.resilience.StoreAccessException;
import org.jspecify.annotations.Nullable;

/**
 * Reads the keys of an Ehcache 3 JCache cache from its {@link Store} (the authoritative tier),
 * which neither calls the expiry policy's access hook nor counts hits: {@code Eh107Cache}'s
 * iterator and Ehcache's own {@code Cache.iterator()} both do (the latter through its get
 * observer). The store is a protected field of {@link EhcacheBase}; reading it is the one
 * reflective access of the adapter, checked once when the cache is attached.
 *
 * <p>The store's iterator is weakly consistent over its map (every key present for the whole scan
 * is emitted); it skips, and expires, entries that have expired, as the cache would on any read.
 */
final class EhcacheKeys {

  private EhcacheKeys() {}

  static <K> @Nullable Consumer<Consumer<? super K>> of(Cache<K, ?> cache) {
    Store<K, Object> store = store(cache);
    return store == null ? null : reader(cache, store);
  }

  /** The store of an Ehcache 3 JCache cache, or null if it cannot be read. */
  @SuppressWarnings("unchecked")
  static <K> @Nullable Store<K, Object> store(Cache<K, ?> cache) {
    org.ehcache.Cache<K, ?> ehcache = cache.unwrap(org.ehcache.Cache.class);
    if (!(ehcache instanceof EhcacheBase)) {
      return null;
    }
    try {
      Field field = EhcacheBase.class.getDeclaredField("store");
      field.setAccessible(true);
      return (Store<K, Object>) field.get(ehcache);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Every key {@code keys} (the store of {@code cache}) holds, by its weakly consistent iterator.
   */
  static <K> Consumer<Consumer<? super K>> reader(Cache<K, ?> cache, Store<K, Object> keys) {
    return action -> {
      try {
        Store.Iterator<org.ehcache.Cache.Entry<K, Store.ValueHolder<Object>>> iterator =
            keys.iterator();
        while (iterator.hasNext()) {
          org.ehcache.Cache.Entry<K, Store.ValueHolder<Object>> entry = iterator.next();
          if (entry != null) {
            action.accept(entry.getKey());
          }
        }
      } catch (StoreAccessException e) {
        throw new IllegalStateException(
            "reading the keys of Ehcache cache '" + cache.getName() + "' failed", e);
      }
    };
  }
}
