package io.github.cuckooguard.boot;

import io.github.cuckooguard.spring.internal.GuardClusterSettings;
import org.jspecify.annotations.Nullable;

/**
 * {@code cuckooguard.cluster.enabled}, {@code hazelcast-bean}, {@code lease-millis} and {@code
 * minimum-members}, handed to the spring adapter, whose guards of the context then cluster by them
 * rather than by the attributes of {@code @EnableCuckooGuard} (each one that is set wins). The
 * lease and the minimum members are checked when this bean is created. Immutable and thread-safe.
 */
final class EnvironmentClusterSettings implements GuardClusterSettings {

  static final String PREFIX = CuckooGuardProperties.PREFIX + ".cluster.";
  static final String ENABLED = PREFIX + "enabled";
  static final String HAZELCAST_BEAN = PREFIX + "hazelcast-bean";
  static final String LEASE_MILLIS = PREFIX + "lease-millis";
  static final String MINIMUM_MEMBERS = PREFIX + "minimum-members";

  private final @Nullable Boolean enabled;
  private final @Nullable String hazelcastBean;
  private final @Nullable Long leaseMillis;
  private final @Nullable Integer minimumMembers;

  EnvironmentClusterSettings(CuckooGuardProperties.Cluster cluster) {
    this.enabled = cluster.getEnabled();
    String bean = cluster.getHazelcastBean();
    if (bean != null && bean.isBlank()) {
      throw new CuckooGuardPropertyException(
          HAZELCAST_BEAN + " is empty: name the HazelcastInstance bean, or remove the setting");
    }
    this.hazelcastBean = bean;
    this.leaseMillis = checkedLease(cluster.getLeaseMillis());
    this.minimumMembers = checkedMinimumMembers(cluster.getMinimumMembers());
    if (Boolean.FALSE.equals(enabled) && cluster.getInstance() != null) {
      throw contradiction(PREFIX + "instance=" + cluster.getInstance());
    }
  }

  /**
   * {@code lease}, if in range.
   *
   * @throws CuckooGuardPropertyException naming the value and the range
   */
  static @Nullable Long checkedLease(@Nullable Long lease) {
    if (lease != null && lease < MIN_LEASE_MILLIS) {
      throw new CuckooGuardPropertyException(
          LEASE_MILLIS
              + "="
              + lease
              + " is out of range: the lease must be at least "
              + MIN_LEASE_MILLIS
              + " ms (["
              + MIN_LEASE_MILLIS
              + ", "
              + Long.MAX_VALUE
              + "]), or unset for the cluster module's default");
    }
    return lease;
  }

  /**
   * {@code members}, if in range.
   *
   * @throws CuckooGuardPropertyException naming the property, the value and the range
   */
  static @Nullable Integer checkedMinimumMembers(@Nullable Integer members) {
    if (members != null && (members < MIN_MINIMUM_MEMBERS || members > MAX_MINIMUM_MEMBERS)) {
      throw new CuckooGuardPropertyException(
          MINIMUM_MEMBERS
              + "="
              + members
              + " is out of range: the minimum members must be in ["
              + MIN_MINIMUM_MEMBERS
              + ", "
              + MAX_MINIMUM_MEMBERS
              + "] (a majority of the cluster), or unset for 1 (no split-brain protection)");
    }
    return members;
  }

  /** {@code enabled=false} beside a setting that turns the entity guards' replication on. */
  static CuckooGuardPropertyException contradiction(String setting) {
    return new CuckooGuardPropertyException(
        ENABLED
            + "=false keeps the guards of this application local, but "
            + setting
            + " replicates the Hibernate entity guards: remove one of the two");
  }

  @Override
  public @Nullable Boolean enabled() {
    return enabled;
  }

  @Override
  public @Nullable String hazelcastInstance() {
    return hazelcastBean;
  }

  @Override
  public @Nullable Long leaseMillis() {
    return leaseMillis;
  }

  @Override
  public @Nullable Integer minimumMembers() {
    return minimumMembers;
  }

  @Override
  public String name(Attribute attribute) {
    return switch (attribute) {
      case CLUSTER -> ENABLED;
      case HAZELCAST_INSTANCE -> HAZELCAST_BEAN;
      case CLUSTER_LEASE_MILLIS -> LEASE_MILLIS;
      case CLUSTER_MINIMUM_MEMBERS -> MINIMUM_MEMBERS;
    };
  }
}
