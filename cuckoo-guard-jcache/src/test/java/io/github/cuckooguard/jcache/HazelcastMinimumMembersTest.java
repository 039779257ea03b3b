package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@value GuardSettings#CLUSTER_MINIMUM_MEMBERS} on Hazelcast's member JCache provider (one JVM,
 * loopback, TCP-IP join on 127.0.0.1:{@value #PORT}+, multicast and auto-detection off): a member
 * that sees fewer members than the setting refuses writes through its guarded cache and changes
 * nothing, and its guard passes through; once enough members are up, writes succeed and are found
 * on the other member. Bad values are refused when the cache is created.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HazelcastMinimumMembersTest {

  static final int PORT = 5900;
  static final long LEASE_MILLIS = 1_000;

  private static final String CLUSTER = "cuckoo-guard-minimum-" + UUID.randomUUID();
  private static final List<GuardedCachingProvider> PROVIDERS = new ArrayList<>();
  private static HazelcastInstance memberA;

  @BeforeAll
  static void startFirstMember() {
    memberA = startMember();
  }

  @AfterAll
  static void stop() {
    PROVIDERS.forEach(GuardedCachingProvider::close);
    if (memberA != null) {
      memberA.getLifecycleService().terminate();
    }
  }

  private static HazelcastInstance startMember() {
    Config config = new Config().setClusterName(CLUSTER);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(PORT).setPortAutoIncrement(true).setPortCount(10);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig()
        .setEnabled(true)
        .addMember("127.0.0.1:" + PORT)
        .addMember("127.0.0.1:" + (PORT + 1));
    return Hazelcast.newHazelcastInstance(config);
  }

  private static CacheManager guardedManager(HazelcastInstance member, Properties settings) {
    GuardedCachingProvider provider =
        new GuardedCachingProvider(new HazelcastMemberCachingProvider());
    PROVIDERS.add(provider);
    Properties properties = HazelcastCachingProvider.propertiesByInstanceItself(member);
    properties.setProperty("cuckooguard.cluster-lease", Long.toString(LEASE_MILLIS));
    properties.putAll(settings);
    return provider.getCacheManager(
        provider.getDefaultURI(), provider.getDefaultClassLoader(), properties);
  }

  private static Properties minimumMembers(String value) {
    Properties p = new Properties();
    p.setProperty("cuckooguard." + GuardSettings.CLUSTER_MINIMUM_MEMBERS, value);
    return p;
  }

  private static MutableConfiguration<Long, String> config() {
    return new MutableConfiguration<Long, String>().setTypes(Long.class, String.class);
  }

  /**
   * Alone with minimumMembers 2, member A refuses puts (CacheException naming minimumMembers) and
   * stores nothing, so a later get answers null truthfully; its guard passes through. With member B
   * up, puts on either member succeed and a get on the other finds every key (0 false negatives).
   * Fails if the setting is not passed to the group: A's put then succeeds alone.
   */
  @Test
  void belowMinimumMembersAPutFailsAndStoresNothingAndWithEnoughMembersPutsSucceed() {
    CacheManager onAManager = guardedManager(memberA, minimumMembers("2"));
    GuardedCache<Long, String> onA =
        (GuardedCache<Long, String>) onAManager.createCache("minimum", config());
    assertThat(memberA.getCluster().getMembers()).hasSize(1);

    assertThatThrownBy(() -> onA.put(1L, "v"))
        .isInstanceOf(CacheException.class)
        .hasMessageContaining("minimumMembers (2)");
    assertThatThrownBy(() -> onA.putAll(Map.of(2L, "v", 3L, "v")))
        .isInstanceOf(CacheException.class)
        .hasMessageContaining("minimumMembers (2)");
    // Nothing was stored, so null is the true answer; and the guard claims nothing is absent.
    for (long k = 1; k <= 3; k++) {
      assertThat(onA.delegate().containsKey(k)).as("key %s stored by a refused put", k).isFalse();
      assertThat(onA.get(k)).isNull();
    }
    assertThat(onA.isPassThrough()).as("a member below minimumMembers answers 'absent'").isTrue();
    assertThat(onA.mightContain(42L)).isTrue();

    HazelcastInstance memberB = startMember();
    try {
      await("two members", () -> memberA.getCluster().getMembers().size() == 2);
      GuardedCache<Long, String> onB =
          (GuardedCache<Long, String>)
              guardedManager(memberB, minimumMembers("2"))
                  .getCache("minimum", Long.class, String.class);
      await(
          "both guards joined the group and read the cache",
          () -> !onA.isPassThrough() && !onB.isPassThrough());

      int falseNegatives = 0;
      for (long k = 1; k <= 200; k++) {
        GuardedCache<Long, String> writer = k % 2 == 0 ? onA : onB;
        GuardedCache<Long, String> reader = k % 2 == 0 ? onB : onA;
        writer.put(k, "v" + k);
        if (reader.get(k) == null) {
          falseNegatives++;
        }
      }
      assertThat(falseNegatives).isZero();
      assertThat(onA.delegate().containsKey(1L)).isTrue();
    } finally {
      memberB.getLifecycleService().terminate();
    }
  }

  /**
   * A value outside [1, 1000] or not a number is refused when the cache is created, naming the
   * property, the value and the range; the delegate creates no cache.
   */
  @Test
  void badMinimumMembersAreRefusedWhenTheCacheIsCreated() {
    for (String bad : List.of("0", "-1", "1001", "two", "1.5", "")) {
      CacheManager manager = guardedManager(memberA, minimumMembers(bad));
      String name = "bad-minimum-" + PROVIDERS.size();
      assertThatThrownBy(() -> manager.createCache(name, config()))
          .as("cluster-minimum-members = '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cuckooguard.cluster-minimum-members")
          .hasMessageContaining("'" + bad + "'")
          .hasMessageContaining("[1, 1000]");
      assertThat(manager.getCacheNames()).doesNotContain(name);
    }
    // Per cache, in snake_case: found under the cache's own prefix.
    Properties perCache = new Properties();
    perCache.setProperty("cuckooguard.cache.per-cache.cluster_minimum_members", "1001");
    CacheManager manager = guardedManager(memberA, perCache);
    assertThatThrownBy(() -> manager.createCache("per-cache", config()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cuckooguard.cache.per-cache.cluster_minimum_members")
        .hasMessageContaining("[1, 1000]");
    // The largest accepted value is accepted.
    assertThat(guardedManager(memberA, minimumMembers("1000")).createCache("max", config()))
        .isNotNull();
  }
}
