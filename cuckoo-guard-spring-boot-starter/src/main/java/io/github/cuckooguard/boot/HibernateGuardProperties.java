package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * What the Hibernate auto-configurations of the Boot lines pass to Hibernate: {@code
 * cuckooguard.hibernate.*} as {@code hibernate.cuckoo.*}, {@code cuckooguard.cluster.*} as {@code
 * hibernate.cuckoo.cluster.*}, every guard setting checked so that a misspelled one fails the start
 * with the accepted names. Their {@code HibernatePropertiesCustomizer}s (whose package moved in
 * Boot 4) call {@link #customize}.
 */
final class HibernateGuardProperties {

  /**
   * The names cuckoo-guard-hibernate reads itself under {@code hibernate.cuckoo.}, besides
   * GuardSpec's (the cluster settings are checked by cuckoo-guard-hibernate, under their own
   * prefix).
   */
  static final Set<String> ADAPTER_NAMES =
      Set.of(
          unprefixed(CuckooGuardSettings.ENABLED),
          unprefixed(CuckooGuardSettings.ENTITIES),
          unprefixed(CuckooGuardSettings.SCAN_FETCH_SIZE));

  /** The class cuckoo-guard-hibernate's replication needs; optional for the starter. */
  static final String HAZELCAST_GROUP =
      "io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup";

  static final String CLUSTER_PREFIX = CuckooGuardProperties.PREFIX + ".cluster.";

  private HibernateGuardProperties() {}

  private static String unprefixed(String key) {
    return key.substring(CuckooGuardSettings.PREFIX.length());
  }

  /**
   * Adds the starter's settings to {@code hibernateProperties} and checks every {@code
   * hibernate.cuckoo.*} guard setting in it.
   *
   * @throws CuckooGuardPropertyException naming the setting and the accepted names
   */
  static void customize(CuckooGuardProperties properties, Map<String, Object> hibernateProperties) {
    for (Map.Entry<String, String> e : properties.getHibernate().entrySet()) {
      hibernateProperties.put(CuckooGuardSettings.PREFIX + e.getKey(), e.getValue());
    }
    addCluster(properties.getCluster(), hibernateProperties);
    if (AotProcessing.active()) {
      // No guard in a factory built during AOT processing (see AotProcessing); the generated code
      // builds the real factory at run time, when this flag is unset.
      hibernateProperties.put(CuckooGuardSettings.ENABLED, "false");
    }
    Map<String, Object> guardSettings = new LinkedHashMap<>();
    hibernateProperties.forEach(
        (k, v) -> {
          if (!k.startsWith(CuckooGuardSettings.CLUSTER_PREFIX)) {
            guardSettings.put(k, v);
          }
        });
    try {
      GuardSpec.parse(guardSettings, CuckooGuardSettings.PREFIX, ADAPTER_NAMES);
    } catch (IllegalArgumentException ex) {
      throw new CuckooGuardPropertyException(
          String.valueOf(ex.getMessage())
                  .replace(CuckooGuardSettings.PREFIX, CuckooGuardProperties.PREFIX + ".hibernate.")
              + " (hibernate.cuckoo.* settings come from cuckooguard.hibernate.* or"
              + " spring.jpa.properties.hibernate.cuckoo.*)",
          ex);
    }
  }

  /**
   * {@code cuckooguard.cluster.*} as {@code hibernate.cuckoo.cluster.*}; they replace the same
   * settings given through {@code spring.jpa.properties}. Nothing is added while the instance is
   * unset, which leaves replication off (unless spring.jpa.properties turn it on). {@code enabled}
   * and {@code hazelcast-bean} are the spring adapter's (see {@link EnvironmentClusterSettings});
   * {@code lease-millis} and {@code minimum-members} are for both.
   */
  private static void addCluster(
      CuckooGuardProperties.Cluster cluster, Map<String, Object> hibernateProperties) {
    String instance = cluster.getInstance();
    EnvironmentClusterSettings.checkedLease(cluster.getLeaseMillis());
    EnvironmentClusterSettings.checkedMinimumMembers(cluster.getMinimumMembers());
    if (Boolean.FALSE.equals(cluster.getEnabled())) {
      if (instance != null) {
        throw EnvironmentClusterSettings.contradiction(CLUSTER_PREFIX + "instance=" + instance);
      }
      Object viaJpa = hibernateProperties.get(CuckooGuardSettings.CLUSTER_INSTANCE);
      if (viaJpa != null) {
        throw EnvironmentClusterSettings.contradiction(
            "spring.jpa.properties." + CuckooGuardSettings.CLUSTER_INSTANCE + "=" + viaJpa);
      }
    }
    if (instance == null) {
      // lease-millis and minimum-members alone are for the spring adapter's groups
      if (cluster.getAckTimeoutMillis() != null || cluster.getGroupPrefix() != null) {
        throw new CuckooGuardPropertyException(
            CLUSTER_PREFIX
                + "ack-timeout-millis/group-prefix is given without "
                + CLUSTER_PREFIX
                + "instance: name the running Hazelcast member the entity guards replicate"
                + " through, or remove those settings");
      }
      return;
    }
    if (!ClassUtils.isPresent(HAZELCAST_GROUP, HibernateGuardProperties.class.getClassLoader())
        || !ClassUtils.isPresent(
            "com.hazelcast.core.HazelcastInstance",
            HibernateGuardProperties.class.getClassLoader())) {
      throw new CuckooGuardPropertyException(
          CLUSTER_PREFIX
              + "instance="
              + instance
              + " is set, but io.github.cuckooguard:cuckoo-guard-hazelcast and"
              + " com.hazelcast:hazelcast are not both on the class path: add them, or remove the "
              + CLUSTER_PREFIX
              + "* settings");
    }
    put(hibernateProperties, CuckooGuardSettings.CLUSTER_INSTANCE, instance);
    put(hibernateProperties, CuckooGuardSettings.CLUSTER_LEASE_MILLIS, cluster.getLeaseMillis());
    put(
        hibernateProperties,
        CuckooGuardSettings.CLUSTER_ACK_TIMEOUT_MILLIS,
        cluster.getAckTimeoutMillis());
    put(hibernateProperties, CuckooGuardSettings.CLUSTER_GROUP_PREFIX, cluster.getGroupPrefix());
    put(
        hibernateProperties,
        CuckooGuardSettings.CLUSTER_MINIMUM_MEMBERS,
        cluster.getMinimumMembers());
  }

  private static void put(Map<String, Object> properties, String key, @Nullable Object value) {
    if (value != null) {
      // the same setting in another spelling (lease-millis) would be read too: this one replaces it
      properties.keySet().removeIf(k -> canonical(k).equals(canonical(key)));
      properties.put(key, value.toString());
    }
  }

  private static String canonical(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }
}
