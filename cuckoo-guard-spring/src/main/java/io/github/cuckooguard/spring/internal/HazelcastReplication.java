package io.github.cuckooguard.spring.internal;

import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link GuardCluster.Replication} over an embedded Hazelcast member: one {@link
 * HazelcastGuardGroup} per guard. Loaded only when a {@code HazelcastInstance} bean was found and
 * cuckoo-guard-hazelcast is on the class path. Thread-safe (its caller synchronizes).
 */
final class HazelcastReplication implements GuardCluster.Replication {

  private final HazelcastInstance member;
  private final long leaseMillis;
  private final int minimumMembers;
  private final List<HazelcastGuardGroup<Object>> groups = new ArrayList<>();

  HazelcastReplication(Object member, String beanName, long leaseMillis, int minimumMembers) {
    if (!(member instanceof HazelcastInstance hz)) {
      throw new IllegalStateException(
          "@EnableCuckooGuard: the bean '"
              + beanName
              + "' is a "
              + member.getClass().getName()
              + ", not a com.hazelcast.core.HazelcastInstance");
    }
    this.member = hz;
    this.leaseMillis = leaseMillis;
    this.minimumMembers = minimumMembers;
  }

  @Override
  public ReplicatedGuard<Object> join(String groupName, CuckooGuard<Object> guard) {
    HazelcastGuardGroup.Builder<Object> builder =
        HazelcastGuardGroup.newBuilder(member, guard).name(groupName);
    if (leaseMillis > 0) {
      builder.lease(Duration.ofMillis(leaseMillis));
    }
    builder.minimumMembers(minimumMembers); // checked in [1, 1000] by GuardCluster
    HazelcastGuardGroup<Object> group = builder.join();
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
