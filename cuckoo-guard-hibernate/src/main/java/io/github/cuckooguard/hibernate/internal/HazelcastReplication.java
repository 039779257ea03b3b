package io.github.cuckooguard.hibernate.internal;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link Replication} over an embedded Hazelcast member: one {@link HazelcastGuardGroup} per guard,
 * named {@code prefix + guard name}. Loaded only when the cluster settings are given.
 */
final class HazelcastReplication implements Replication {

  private final HazelcastInstance member;
  private final ClusterSettings settings;
  private final List<HazelcastGuardGroup<Object>> groups = new CopyOnWriteArrayList<>();

  HazelcastReplication(ClusterSettings settings) {
    this.settings = settings;
    Object instance = settings.instance();
    if (instance instanceof HazelcastInstance hz) {
      this.member = hz;
    } else if (instance instanceof String name) {
      HazelcastInstance found = Hazelcast.getHazelcastInstanceByName(name);
      if (found == null) {
        throw new IllegalArgumentException(
            "setting "
                + CuckooGuardSettings.CLUSTER_INSTANCE
                + " = '"
                + name
                + "' names no running Hazelcast member in this JVM; start it before the session factory, or pass"
                + " the HazelcastInstance itself in the settings map");
      }
      this.member = found;
    } else {
      throw new IllegalArgumentException(
          "setting "
              + CuckooGuardSettings.CLUSTER_INSTANCE
              + " is a "
              + instance.getClass().getName()
              + "; give a HazelcastInstance (a member, not a client) or its name");
    }
  }

  @Override
  public ReplicatedGuard<Object> join(CuckooGuard<Object> guard) {
    HazelcastGuardGroup.Builder<Object> b =
        HazelcastGuardGroup.newBuilder(member, guard).name(settings.groupPrefix() + guard.name());
    if (settings.leaseMillis() > 0) {
      b.lease(Duration.ofMillis(settings.leaseMillis()));
    }
    if (settings.ackTimeoutMillis() > 0) {
      b.ackTimeout(Duration.ofMillis(settings.ackTimeoutMillis()));
    }
    if (settings.minimumMembers() > 1) {
      b.minimumMembers(settings.minimumMembers());
    }
    HazelcastGuardGroup<Object> group = b.join();
    groups.add(group);
    return group.guard();
  }

  @Override
  public void close() {
    for (HazelcastGuardGroup<Object> group : groups) {
      group.close();
    }
    groups.clear();
  }
}
