package io.github.cuckooguard.jcache.internal;

import javax.cache.Cache;

/**
 * Joins a guarded cache's guard to a guard group where the provider has one the adapter knows: a
 * Hazelcast member's cache, with {@code cuckoo-guard-hazelcast} on the class path ({@link
 * HazelcastGroups}). The classes are recognised by name first, so that neither optional dependency
 * is loaded when it is absent.
 */
public final class Groups {

  private static final String GROUP_CLASS =
      "io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup";

  private Groups() {}

  /** Whether a cache's guard can join a group on this class path: the cluster module is there. */
  public static boolean available(Cache<?, ?> cache) {
    if (!cache.getClass().getName().startsWith("com.hazelcast.cache.impl.CacheProxy")) {
      return false;
    }
    try {
      Class.forName(GROUP_CLASS, false, Groups.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * Joins {@code guard} to the group of {@code cache} ({@link CacheGuard#joinedGroup}).
   *
   * @return false if the provider has no group the adapter knows, or the cluster module is not on
   *     the class path: the guard then follows the cache as without a group
   * @throws javax.cache.CacheException if the group cannot be joined (see {@link HazelcastGroups})
   */
  public static <K> boolean join(Cache<K, ?> cache, CacheGuard<K> guard, GroupSettings settings) {
    if (!available(cache)) {
      return false;
    }
    try {
      return HazelcastGroups.join(cache, guard, settings);
    } catch (LinkageError e) {
      return false; // another Hazelcast version than the cluster module's
    }
  }
}
