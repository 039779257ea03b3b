package io.github.cuckooguard.jcache.internal;

import com.hazelcast.cache.impl.CacheProxy;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.cluster.ClusterService;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import java.time.Duration;
import javax.cache.Cache;
import javax.cache.CacheException;

/**
 * Joins the guard of a Hazelcast member's cache to the guard group of that cache on the cluster
 * ({@link HazelcastGuardGroup} of {@code cuckoo-guard-hazelcast}): the group is named after the
 * cache's full name in the cluster ({@code CacheProxy.getPrefixedName()}: URI and class-loader
 * scope included), so the guarded caches of one cache on every member form one replicated guard.
 * Expiry and eviction are not paired there (see {@link Compaction}, which bounds their leak).
 * Loaded only through {@link Groups}, once Hazelcast's and the cluster module's classes are known
 * to be there (both are optional dependencies).
 */
final class HazelcastGroups {

  private HazelcastGroups() {}

  /**
   * Joins {@code guard} to its cache's group on the member that holds {@code cache}.
   *
   * @return false if {@code cache} is no member-side proxy (a Hazelcast client's cache)
   * @throws CacheException if this member already has a guard group for that cache (another guarded
   *     manager in this JVM guards it)
   */
  static <K> boolean join(Cache<K, ?> cache, CacheGuard<K> guard, GroupSettings settings) {
    if (!(cache instanceof CacheProxy<?, ?> proxy)) {
      return false;
    }
    HazelcastInstance member = proxy.getNodeEngine().getHazelcastInstance();
    String name = "jcache:" + proxy.getPrefixedName();
    HazelcastGuardGroup.Builder<K> builder =
        HazelcastGuardGroup.newBuilder(member, guard.guard()).name(name);
    Duration lease = settings.lease();
    if (lease != null) {
      builder.lease(lease);
    }
    builder.minimumMembers(settings.minimumMembers());
    // Hazelcast re-invokes a cache operation whose owner left before the caller had every
    // acknowledgement: a removal between the two runs must not take the copy of the write's enter.
    builder.writesMayRunTwice(true);
    HazelcastGuardGroup<K> group;
    try {
      group = builder.join();
    } catch (IllegalStateException e) {
      throw new CacheException(
          "Cache '"
              + cache.getName()
              + "' is already guarded on this Hazelcast member by another guarded cache manager"
              + " (guard group '"
              + name
              + "'); close that one first, or use one guarded manager per member",
          e);
    }
    java.util.function.LongSupplier size = HazelcastKeys.sizeOf(cache);
    Compaction compaction = size != null ? new Compaction(guard.guard(), size) : null;
    // Changes with every member that leaves (and joins): Hazelcast updates the member list before
    // it retries the invocations whose target left (CacheGuard.endWrite).
    ClusterService cluster = proxy.getNodeEngine().getClusterService();
    guard.joinedGroup(
        group.guard(),
        group,
        () -> {
          if (compaction != null) {
            compaction.close();
          }
          group.close();
        },
        cluster::getMemberListVersion);
    return true;
  }
}
