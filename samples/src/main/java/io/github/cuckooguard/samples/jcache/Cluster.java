package io.github.cuckooguard.samples.jcache;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.UUID;
import javax.cache.CacheManager;
import org.jspecify.annotations.Nullable;

/**
 * Two Hazelcast members in this JVM that form a cluster over loopback only: bound to 127.0.0.1,
 * multicast and auto-detection off, the second joining the first by TCP/IP, under a cluster name of
 * their own so that no other Hazelcast on the machine can join. Each member has its own JCache
 * provider (one provider keeps one cache manager per URI and class loader, so two members in one
 * JVM need two). Close it to shut both down.
 */
final class Cluster implements AutoCloseable {

  final HazelcastInstance first;
  final HazelcastInstance second;
  private final HazelcastMemberCachingProvider firstProvider = new HazelcastMemberCachingProvider();
  private final HazelcastMemberCachingProvider secondProvider =
      new HazelcastMemberCachingProvider();

  Cluster() {
    String name = "cuckoo-samples-" + UUID.randomUUID();
    first = Hazelcast.newHazelcastInstance(config(name, "member-a", null));
    try {
      second =
          Hazelcast.newHazelcastInstance(
              config(
                  name,
                  "member-b",
                  "127.0.0.1:" + first.getCluster().getLocalMember().getAddress().getPort()));
    } catch (RuntimeException e) {
      first.getLifecycleService().terminate();
      throw e;
    }
  }

  private static Config config(String clusterName, String memberName, @Nullable String join) {
    Config config =
        new Config()
            .setClusterName(clusterName)
            .setInstanceName(memberName + "-" + UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(5701).setPortAutoIncrement(true).setPortCount(200);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig joining = network.getJoin();
    joining.getMulticastConfig().setEnabled(false);
    joining.getAutoDetectionConfig().setEnabled(false);
    joining.getTcpIpConfig().setEnabled(true);
    if (join != null) {
      joining.getTcpIpConfig().addMember(join);
    }
    return config;
  }

  /** The JCache manager of {@code member} (the default URI), from that member's own provider. */
  CacheManager cacheManager(HazelcastInstance member) {
    return provider(member)
        .getCacheManager(null, null, HazelcastCachingProvider.propertiesByInstanceItself(member));
  }

  /** The JCache provider of {@code member}. */
  HazelcastMemberCachingProvider provider(HazelcastInstance member) {
    return member == first ? firstProvider : secondProvider;
  }

  /**
   * Whether {@code key} lives on the other member, as seen from {@code member}: a get is a network
   * hop.
   */
  static boolean remote(HazelcastInstance member, Object key) {
    Member owner = member.getPartitionService().getPartition(key).getOwner();
    return owner != null && !owner.localMember();
  }

  @Override
  public void close() {
    firstProvider.close();
    secondProvider.close();
    first.getLifecycleService().terminate();
    second.getLifecycleService().terminate();
  }
}
