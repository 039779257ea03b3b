package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import org.jspecify.annotations.Nullable;

/**
 * Cluster settings of a context's guards that come from outside {@code @EnableCuckooGuard} (the
 * Spring Boot starter binds them from the {@code Environment}). When the context holds a bean of
 * this type, each value it gives (non-null) replaces the matching attribute of the annotation
 * ({@code cluster}, {@code hazelcastInstance}, {@code clusterLeaseMillis}, {@code
 * clusterMinimumMembers}), and the start-up errors name its settings (by {@link #name}) instead of
 * the attributes. Read once, when the context decides whether its guards cluster.
 */
public interface GuardClusterSettings {

  /** The shortest lease in milliseconds (the cluster module's bound). */
  long MIN_LEASE_MILLIS = HazelcastGuardGroup.MIN_LEASE_MILLIS;

  /** The smallest minimum members (the cluster module's bound). */
  int MIN_MINIMUM_MEMBERS = HazelcastGuardGroup.MIN_MINIMUM_MEMBERS;

  /** The largest minimum members (the cluster module's bound). */
  int MAX_MINIMUM_MEMBERS = HazelcastGuardGroup.MAX_MINIMUM_MEMBERS;

  /** The attribute of {@code @EnableCuckooGuard} a setting replaces. */
  enum Attribute {
    /** {@code cluster}. */
    CLUSTER,
    /** {@code hazelcastInstance}. */
    HAZELCAST_INSTANCE,
    /** {@code clusterLeaseMillis}. */
    CLUSTER_LEASE_MILLIS,
    /** {@code clusterMinimumMembers}. */
    CLUSTER_MINIMUM_MEMBERS
  }

  /**
   * {@code TRUE}: the guards join their groups, and the context fails to start without a {@code
   * HazelcastInstance} bean or without cuckoo-guard-hazelcast; {@code FALSE}: they stay local even
   * with such a bean; null: the annotation decides (join when there is a bean, unless {@code
   * cluster = false}).
   */
  @Nullable Boolean enabled();

  /**
   * The name of the {@code HazelcastInstance} bean to join through, or null for the annotation's.
   */
  @Nullable String hazelcastInstance();

  /**
   * The lease of the groups in milliseconds (at least {@value #MIN_LEASE_MILLIS}), or null for the
   * annotation's.
   */
  @Nullable Long leaseMillis();

  /**
   * The fewest members an instance must see to answer "absent" or write (in [{@value
   * #MIN_MINIMUM_MEMBERS}, {@value #MAX_MINIMUM_MEMBERS}]), or null for the annotation's ({@code
   * clusterMinimumMembers}). Null by default.
   */
  default @Nullable Integer minimumMembers() {
    return null;
  }

  /**
   * The name of the setting that replaces {@code attribute}, as the user writes it (e.g. a property
   * name), for error messages.
   */
  String name(Attribute attribute);
}
