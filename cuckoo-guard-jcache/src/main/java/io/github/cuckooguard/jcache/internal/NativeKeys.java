package io.github.cuckooguard.jcache.internal;

import java.util.function.Consumer;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * A rebuild's key source that reads the provider's own storage instead of {@link Cache#iterator()}:
 * JCache counts an iteration as an access of every entry (the expiry policy's {@code
 * getExpiryForAccess} is called, so an access-based expiry extends or ends each entry's life, and
 * hit statistics rise), so a rebuild through the iterator would change the cache it reads. The
 * provider classes are recognised by name; Ehcache's and Hazelcast's classes are only loaded once
 * the cache is known to be theirs (both are optional dependencies).
 *
 * <p>What a native read must emit, as the plain scan: every key present for the whole scan (the
 * core's contract; keys whose writes are in flight are covered by the guard). Both readers are
 * weakly consistent iterations of the provider's maps, which emit such keys.
 */
public final class NativeKeys {

  private NativeKeys() {}

  /**
   * A key source reading {@code cache}'s keys without access semantics, or null if the provider
   * offers none the adapter knows (then the rebuild iterates the cache).
   */
  public static <K> @Nullable Consumer<Consumer<? super K>> of(Cache<K, ?> cache) {
    String type = cache.getClass().getName();
    try {
      if (type.equals("org.ehcache.jsr107.Eh107Cache")) {
        return EhcacheKeys.of(cache);
      }
      if (type.startsWith("com.hazelcast.cache.impl.CacheProxy")) {
        return HazelcastKeys.of(cache);
      }
    } catch (RuntimeException | LinkageError e) {
      return null; // another version of the provider: fall back to the iterator
    }
    return null;
  }

  /** Whether {@code cache} is a Hazelcast cache (member or client proxy), told by class name. */
  public static boolean isHazelcast(Cache<?, ?> cache) {
    return cache.getClass().getName().startsWith("com.hazelcast.");
  }
}
