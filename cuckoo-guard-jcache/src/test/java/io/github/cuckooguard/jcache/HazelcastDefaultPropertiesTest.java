package io.github.cuckooguard.jcache;

import static io.github.cuckooguard.jcache.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cache.HazelcastMemberCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.UUID;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression test for issue 14, bug 1: Hazelcast's providers return {@code null} from {@code
 * getDefaultProperties()}, and the guarded provider used to hand that to its cache manager, whose
 * {@code createCache}/{@code getCache} then threw {@link NullPointerException}. The member
 * provider's no-argument path resolves its default instance by the name {@value #DEFAULT_INSTANCE};
 * the test starts that member itself, on loopback with multicast and auto-detection off, so that no
 * member joins anything outside this JVM.
 */
class HazelcastDefaultPropertiesTest {

  /** The instance name Hazelcast's member provider uses when given no properties. */
  private static final String DEFAULT_INSTANCE = "_hzinstance_jcache_shared";

  private HazelcastInstance member;
  private GuardedCachingProvider provider;

  @BeforeEach
  void startMember() {
    Config config =
        new Config()
            .setInstanceName(DEFAULT_INSTANCE)
            .setClusterName("cuckoo-guard-" + UUID.randomUUID());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network = config.getNetworkConfig().setPort(5801).setPortAutoIncrement(true);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(false);
    member = Hazelcast.newHazelcastInstance(config);
    provider = new GuardedCachingProvider(new HazelcastMemberCachingProvider());
  }

  @AfterEach
  void stopMember() {
    provider.close();
    member.getLifecycleService().terminate();
  }

  @Test
  void aManagerObtainedWithoutPropertiesCreatesAndGetsGuardedCaches() {
    assertThat(provider.delegate().getDefaultProperties())
        .as("Hazelcast's own default properties")
        .isNull();
    assertThat(provider.getDefaultProperties()).as("the guarded provider's").isEmpty();

    CacheManager manager = provider.getCacheManager();
    Cache<Long, String> created =
        manager.createCache(
            "defaults",
            new MutableConfiguration<Long, String>().setTypes(Long.class, String.class));
    GuardedCache<Long, String> cache = created.unwrap(GuardedCache.class);
    cache.put(1L, "one");
    await("the guard read the cluster's cache", () -> !cache.isPassThrough());

    assertThat(manager.getCache("defaults", Long.class, String.class)).isSameAs(created);
    assertThat(cache.get(1L)).isEqualTo("one");
    assertThat(cache.mightContain(1L)).isTrue();
    assertThat(member.getCacheManager().getCache("defaults"))
        .as("the member's own cache")
        .isNotNull();
  }
}
