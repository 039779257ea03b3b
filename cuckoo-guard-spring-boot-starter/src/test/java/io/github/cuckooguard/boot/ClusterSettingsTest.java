package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.boot.app.Customer;
import io.github.cuckooguard.boot.app.CustomerRepository;
import io.github.cuckooguard.boot.app.GuardedApp;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * {@code cuckooguard.cluster.*} from the Environment reaches cuckoo-guard-hibernate as {@code
 * hibernate.cuckoo.cluster.*}: with one embedded Hazelcast member (127.0.0.1, ports from 6100,
 * multicast and auto-detection off, a cluster name of its own) the entity guard joins a group named
 * with the configured prefix, and a saved row is found. An unknown key under {@code
 * cuckooguard.cluster.} fails the start naming the accepted keys; a member without
 * cuckoo-guard-hazelcast fails it naming {@code cuckooguard.cluster.enabled}.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterSettingsTest {

  private static final int BASE_PORT = 6100;
  private static HazelcastInstance member;
  private static String instanceName;

  @BeforeAll
  static void startMember() {
    String cluster = "cuckoo-boot-" + UUID.randomUUID();
    instanceName = cluster + "-a";
    Config config = new Config().setClusterName(cluster).setInstanceName(instanceName);
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(BASE_PORT).setPortAutoIncrement(true).setPortCount(8);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + BASE_PORT);
    member = Hazelcast.newHazelcastInstance(config);
  }

  @AfterAll
  static void stopMember() {
    if (member != null) {
      member.shutdown();
    }
  }

  @Test
  void clusterSettingsFromTheEnvironmentReachTheEntityGuards() throws InterruptedException {
    try (ConfigurableApplicationContext context =
        StartupTest.run(
            GuardedApp.class,
            "spring.datasource.url=jdbc:h2:mem:cluster-" + UUID.randomUUID(),
            "cuckooguard.cluster.instance=" + instanceName,
            "cuckooguard.cluster.lease-millis=2000",
            "cuckooguard.cluster.ack-timeout-millis=1000",
            "cuckooguard.cluster.group-prefix=boot-test:",
            "cuckooguard.cluster.minimum-members=1")) {
      EntityManagerFactory emf = context.getBean(EntityManagerFactory.class);
      assertThat(emf.getProperties())
          .containsEntry("hibernate.cuckoo.cluster.instance", instanceName)
          .containsEntry("hibernate.cuckoo.cluster.lease_millis", "2000")
          .containsEntry("hibernate.cuckoo.cluster.ack_timeout_millis", "1000")
          .containsEntry("hibernate.cuckoo.cluster.group_prefix", "boot-test:")
          .containsEntry("hibernate.cuckoo.cluster.minimum_members", "1");
      // the engine keeps the groups it joined on a member in the member's user context
      @SuppressWarnings("unchecked")
      Map<String, ?> groups =
          (Map<String, ?>)
              member.getUserContext().get(HazelcastGuardGroup.class.getName() + ".registry");
      assertThat(groups).as("groups joined on the member").isNotNull();
      assertThat(groups.keySet()).anyMatch(name -> name.startsWith("boot-test:"));

      SessionFactory sessionFactory = emf.unwrap(SessionFactory.class);
      assertThat(HibernateCuckooGuards.of(sessionFactory).awaitWarmUp(Duration.ofSeconds(60)))
          .isTrue();
      CustomerRepository customers = context.getBean(CustomerRepository.class);
      customers.save(new Customer(41, "carol"));
      assertThat(customers.findById(41L))
          .as("a row saved through the replicated guard is found")
          .get()
          .extracting(Customer::getName)
          .isEqualTo("carol");
      assertThat(customers.findById(404_041L)).isEmpty();
    }
  }

  @Test
  void unknownClusterKeyFailsTheStartNamingTheAcceptedKeys(CapturedOutput output) {
    assertThatThrownBy(
            () -> StartupTest.run(GuardedApp.class, "cuckooguard.cluster.lease=300").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("unknown setting cuckooguard.cluster.lease;")
        .contains(
            "[ack-timeout-millis, enabled, group-prefix, hazelcast-bean, instance, lease-millis,"
                + " minimum-members]");
  }

  /** The entity guards' own settings without an instance (lease-millis is also the adapter's). */
  @Test
  void clusterSettingsWithoutAnInstanceFailTheStart(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                StartupTest.run(GuardedApp.class, "cuckooguard.cluster.ack-timeout-millis=300")
                    .close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("without cuckooguard.cluster.instance");
  }

  /**
   * A misspelled {@code cuckooguard.cluster.enabled} fails a real Boot start, naming the key and
   * the accepted names (enabled among them).
   */
  @Test
  void misspelledEnabledFailsTheStartNamingIt(CapturedOutput output) {
    assertThatThrownBy(
            () -> StartupTest.run(GuardedApp.class, "cuckooguard.cluster.enable=false").close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("unknown setting cuckooguard.cluster.enable;")
        .contains("enabled, group-prefix, hazelcast-bean");
  }

  /**
   * A real Boot application with a HazelcastInstance bean and no cuckoo-guard-hazelcast on its
   * class loader: Boot prints the analyzer's description and action, both naming the property.
   */
  @Test
  void aMemberWithoutTheModuleFailsTheBootStartNamingTheProperty(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(GuardedApp.class)
                    .web(WebApplicationType.NONE)
                    .resourceLoader(
                        new DefaultResourceLoader(
                            new FilteredClassLoader("io.github.cuckooguard.cluster.hazelcast")))
                    .initializers(
                        c ->
                            ((GenericApplicationContext) c)
                                .registerBean(
                                    "hazelcastInstance", HazelcastInstance.class, () -> member))
                    .run("--spring.datasource.url=jdbc:h2:mem:nomodule-" + UUID.randomUUID())
                    .close())
        .isInstanceOf(Exception.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("io.github.cuckooguard:cuckoo-guard-hazelcast is not on the class path")
        .contains("or set cuckooguard.cluster.enabled=false if this is the only application")
        .contains("Action:")
        .contains("Add io.github.cuckooguard:cuckoo-guard-hazelcast");
    assertThat(member.getLifecycleService().isRunning()).as("the member is the test's").isTrue();
  }
}
