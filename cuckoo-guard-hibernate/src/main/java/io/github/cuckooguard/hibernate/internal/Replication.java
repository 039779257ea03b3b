package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spi.ReplicatedGuard;

/**
 * Joins the guards of a session factory to their groups on the other application instances. One per
 * factory; an engine module provides the implementation ({@link HazelcastReplication}).
 */
interface Replication extends AutoCloseable {

  /**
   * Joins {@code guard} to the group named after it; the returned guard is what writes and lookups
   * go through.
   */
  ReplicatedGuard<Object> join(CuckooGuard<Object> guard);

  /** Leaves every group joined here (the factory is closing). */
  @Override
  void close();

  /**
   * The replication the settings ask for.
   *
   * @throws IllegalStateException if cuckoo-guard-hazelcast or Hazelcast is missing from the class
   *     path
   * @throws IllegalArgumentException if the instance setting names no running member
   */
  static Replication of(ClusterSettings settings) {
    try {
      Class.forName(
          "io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup",
          false,
          Replication.class.getClassLoader());
      Class.forName(
          "com.hazelcast.core.HazelcastInstance", false, Replication.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException(
          "setting "
              + io.github.cuckooguard.hibernate.CuckooGuardSettings.CLUSTER_INSTANCE
              + " is set, but io.github.cuckooguard:cuckoo-guard-hazelcast and com.hazelcast:hazelcast are not both on the"
              + " class path; add them, or remove the hibernate.cuckoo.cluster.* settings",
          e);
    }
    return new HazelcastReplication(settings);
  }
}
