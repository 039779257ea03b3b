package io.github.cuckooguard.spring.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spring.support.Contexts;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * Embedded Hazelcast members in this JVM on 127.0.0.1 (TCP-IP join, multicast and auto-detection
 * off, one cluster name each), and application contexts using them. Ports: from {@code
 * -Dcuckoo.test.spring.hazelcast.port} (default 6110) on, 5 blocks of 8 that successive clusters
 * rotate through (6110-6149 by default). Closes contexts before members.
 */
final class ClusterMembers implements AutoCloseable {

  private static final int PORTS = 8;
  private static final int BLOCKS = 5;
  private static final int FIRST_PORT =
      Integer.getInteger("cuckoo.test.spring.hazelcast.port", 6110);
  private static final AtomicInteger NEXT_BLOCK = new AtomicInteger();

  private final String cluster = "cuckoo-guard-spring-" + UUID.randomUUID();
  private final int basePort =
      FIRST_PORT + PORTS * Math.floorMod(NEXT_BLOCK.getAndIncrement(), BLOCKS);
  private final List<HazelcastInstance> members = new ArrayList<>();
  private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

  HazelcastInstance member() {
    Config config = new Config().setClusterName(cluster);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(basePort).setPortAutoIncrement(true).setPortCount(PORTS);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    for (int p = basePort; p < basePort + PORTS; p++) {
      join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + p);
    }
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    members.add(member);
    return member;
  }

  /** An application instance on the database {@code url} with {@code member} as a bean. */
  AnnotationConfigApplicationContext context(
      String url, HazelcastInstance member, Class<?> configuration) {
    AnnotationConfigApplicationContext context =
        Contexts.start(
            url,
            c -> c.registerBean("hazelcast", HazelcastInstance.class, () -> member),
            configuration);
    contexts.add(context);
    return context;
  }

  @Override
  public void close() {
    for (AnnotationConfigApplicationContext context : contexts) {
      context.close();
    }
    for (HazelcastInstance member : members) {
      member.getLifecycleService().terminate();
    }
  }
}
