package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_ACK_TIMEOUT_MILLIS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_GROUP_PREFIX;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_INSTANCE;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_LEASE_MILLIS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_MINIMUM_MEMBERS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_PREFIX;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_CLUSTER_GROUP_PREFIX;

import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@code hibernate.cuckoo.cluster.*} settings. Holds the instance as given (an object or a
 * name), so that reading the settings loads no Hazelcast class.
 *
 * @param instance a {@code HazelcastInstance}, or the name of one
 * @param leaseMillis the lease, or 0 for the engine's default
 * @param ackTimeoutMillis the ack timeout, or 0 for the engine's default
 * @param groupPrefix prefix of the group names
 * @param minimumMembers the engine's minimum members (1: no split-brain protection)
 */
record ClusterSettings(
    Object instance,
    long leaseMillis,
    long ackTimeoutMillis,
    String groupPrefix,
    int minimumMembers) {

  private static final Set<String> NAMES =
      Set.of(
          canonical(CLUSTER_INSTANCE),
          canonical(CLUSTER_LEASE_MILLIS),
          canonical(CLUSTER_ACK_TIMEOUT_MILLIS),
          canonical(CLUSTER_GROUP_PREFIX),
          canonical(CLUSTER_MINIMUM_MEMBERS));

  /**
   * The cluster settings, or null if {@link
   * io.github.cuckooguard.hibernate.CuckooGuardSettings#CLUSTER_INSTANCE} is not set.
   *
   * @throws IllegalArgumentException naming the setting for an unknown name under the prefix or a
   *     bad value
   */
  static @Nullable ClusterSettings from(Map<String, ?> settings) {
    Object instance = null;
    long lease = 0;
    long ack = 0;
    String prefix = DEFAULT_CLUSTER_GROUP_PREFIX;
    int minimum = 1;
    for (Map.Entry<String, ?> e : settings.entrySet()) {
      String key = e.getKey();
      if (key == null || !key.startsWith(CLUSTER_PREFIX) || e.getValue() == null) {
        continue;
      }
      String name = canonical(key);
      if (!NAMES.contains(name)) {
        throw new IllegalArgumentException(
            "unknown setting "
                + key
                + "; the cluster settings are "
                + CLUSTER_INSTANCE
                + ", "
                + CLUSTER_LEASE_MILLIS
                + ", "
                + CLUSTER_ACK_TIMEOUT_MILLIS
                + ", "
                + CLUSTER_GROUP_PREFIX
                + " and "
                + CLUSTER_MINIMUM_MEMBERS);
      }
      Object value = e.getValue();
      if (name.equals(canonical(CLUSTER_INSTANCE))) {
        instance = value instanceof String s ? s.trim() : value;
      } else if (name.equals(canonical(CLUSTER_LEASE_MILLIS))) {
        lease = millis(key, value, HazelcastGuardGroup.MIN_LEASE_MILLIS);
      } else if (name.equals(canonical(CLUSTER_ACK_TIMEOUT_MILLIS))) {
        ack = millis(key, value, 1);
      } else if (name.equals(canonical(CLUSTER_MINIMUM_MEMBERS))) {
        minimum = members(key, value);
      } else {
        prefix = value.toString().trim();
      }
    }
    if (instance == null) {
      return null;
    }
    if (instance instanceof String s && s.isEmpty()) {
      throw new IllegalArgumentException(
          "setting "
              + CLUSTER_INSTANCE
              + " is blank: give a HazelcastInstance or the"
              + " name of a running one");
    }
    return new ClusterSettings(instance, lease, ack, prefix, minimum);
  }

  private static int members(String key, Object value) {
    int v;
    try {
      v = Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + key + " = '" + value + "' is not a whole number of members", e);
    }
    if (v < HazelcastGuardGroup.MIN_MINIMUM_MEMBERS
        || v > HazelcastGuardGroup.MAX_MINIMUM_MEMBERS) {
      throw new IllegalArgumentException(
          "setting "
              + key
              + " = "
              + v
              + " must be in ["
              + HazelcastGuardGroup.MIN_MINIMUM_MEMBERS
              + ", "
              + HazelcastGuardGroup.MAX_MINIMUM_MEMBERS
              + "] (a majority of the cluster)");
    }
    return v;
  }

  private static long millis(String key, Object value, long min) {
    long v;
    try {
      v = Long.parseLong(value.toString().trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + key + " = '" + value + "' is not a whole number of" + " milliseconds", e);
    }
    if (v < min) {
      throw new IllegalArgumentException(
          "setting " + key + " = " + v + " must be at least " + min + " ms");
    }
    return v;
  }

  private static String canonical(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }
}
