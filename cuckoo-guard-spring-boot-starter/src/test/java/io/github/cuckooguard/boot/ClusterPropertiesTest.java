package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.boot.clusterapp.NoteApp;
import io.github.cuckooguard.boot.clusterapp.NoteStore;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * {@code cuckooguard.cluster.enabled}, {@code hazelcast-bean} and {@code lease-millis} for the
 * guards of a Boot context that has a {@code HazelcastInstance} bean for its own reasons. Real
 * contexts of the starter's auto-configuration, real embedded members (127.0.0.1, ports 6120–6129,
 * multicast and auto-detection off, a cluster name per test), one in-memory store shared by the
 * contexts as two instances of a service share a database.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterPropertiesTest {

  private static final int BASE_PORT = 6120;
  private static final String REGISTRY =
      "io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup.registry";

  private String clusterName = "";

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(CuckooGuardAutoConfiguration.class))
        .withPropertyValues("test.cluster-name=" + clusterName);
  }

  @BeforeEach
  void freshStoreAndCluster() {
    NoteStore.SHARED.clear();
    clusterName = "cuckoo-boot-props-" + UUID.randomUUID();
  }

  @AfterEach
  void noMemberLeft() {
    for (HazelcastInstance hz : Hazelcast.getAllHazelcastInstances()) {
      if (hz.getConfig().getClusterName().equals(clusterName)) {
        hz.shutdown();
      }
    }
  }

  /**
   * enabled=false with a member and the cluster module: the context starts, no group is joined, and
   * (the point of the setting, and its danger) a key one context adds is reported absent by the
   * other's warmed-up guard.
   */
  @Test
  void disabledKeepsTheGuardsLocalBesideAMember() throws Exception {
    ApplicationContextRunner local =
        runner()
            .withUserConfiguration(NoteApp.class, Member.class)
            .withPropertyValues("cuckooguard.cluster.enabled=false");
    local.run(
        a ->
            local.run(
                b -> {
                  assertThat(a).hasNotFailed();
                  assertThat(b).hasNotFailed();
                  warmedUp(a);
                  warmedUp(b);
                  assertThat(groups(a))
                      .as("groups on A's member")
                      .doesNotContainKey("spring:notes");
                  assertThat(groups(b))
                      .as("groups on B's member")
                      .doesNotContainKey("spring:notes");
                  a.getBean(NoteStore.class).insert(7, "seven");
                  assertThat(b.getBean(NoteStore.class).find(7))
                      .as("B's local guard never heard of A's add")
                      .isNull();
                  assertThat(a.getBean(NoteStore.class).find(7)).isEqualTo("seven");
                }));
  }

  /**
   * A member but no cuckoo-guard-hazelcast, nothing set: the start fails, and the message and the
   * failure analyzer's action name the property that opts out.
   */
  @Test
  void aMemberWithoutTheModuleFailsNamingTheProperty() {
    runner()
        .withClassLoader(new FilteredClassLoader("io.github.cuckooguard.cluster.hazelcast"))
        .withUserConfiguration(NoteApp.class, Member.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable failure = context.getStartupFailure();
              FailureAnalysis analysis = new CuckooGuardFailureAnalyzer().analyze(failure);
              assertThat(analysis).as("the starter's analyzer reports it").isNotNull();
              assertThat(analysis.getDescription())
                  .contains("HazelcastInstance bean 'hazelcastInstance'")
                  .contains("io.github.cuckooguard:cuckoo-guard-hazelcast is not on the class path")
                  .contains("set cuckooguard.cluster.enabled=false")
                  .doesNotContain("@EnableCuckooGuard(cluster = false)");
              assertThat(analysis.getAction())
                  .contains("Add io.github.cuckooguard:cuckoo-guard-hazelcast")
                  .contains("cuckooguard.cluster.enabled=false");
            });
  }

  /** The same context with enabled=false starts without the module, its guard local. */
  @Test
  void disabledStartsWithoutTheModule() throws Exception {
    runner()
        .withClassLoader(new FilteredClassLoader("io.github.cuckooguard.cluster.hazelcast"))
        .withUserConfiguration(NoteApp.class, Member.class)
        .withPropertyValues("cuckooguard.cluster.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              warmedUp(context);
              NoteStore notes = context.getBean(NoteStore.class);
              notes.insert(3, "three");
              assertThat(notes.find(3)).isEqualTo("three");
              assertThat(groups(context)).doesNotContainKey("spring:notes");
            });
  }

  /**
   * enabled=true, two contexts with a member each on one cluster: both join spring:notes, and every
   * key one adds is in the other's guard when the add returns, and found there.
   */
  @Test
  void enabledJoinsTheGroupAndTheContextsSeeEachOthersAdds() throws Exception {
    ApplicationContextRunner clustered =
        runner()
            .withUserConfiguration(NoteApp.class, Member.class)
            .withPropertyValues(
                "cuckooguard.cluster.enabled=true", "cuckooguard.cluster.lease-millis=1000");
    clustered.run(
        a ->
            clustered.run(
                b -> {
                  assertThat(a).hasNotFailed();
                  assertThat(b).hasNotFailed();
                  warmedUp(a);
                  warmedUp(b);
                  assertThat(groups(a)).containsKey("spring:notes");
                  assertThat(groups(b)).containsKey("spring:notes");
                  assertThat(member(a).getCluster().getMembers()).hasSize(2);
                  crossAdds(a, b, 0);
                  crossAdds(b, a, 1_000);
                }));
  }

  /**
   * The property wins over the attribute of the application's own {@code @EnableCuckooGuard}: with
   * {@code cluster = false} on the annotation and enabled=true the guards join; the annotation
   * alone keeps them local.
   */
  @Test
  void thePropertyWinsOverTheApplicationsAnnotation() throws Exception {
    runner()
        .withUserConfiguration(OwnAnnotation.class)
        .withPropertyValues("cuckooguard.cluster.enabled=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              warmedUp(context);
              assertThat(groups(context)).containsKey("spring:notes");
            });
    runner()
        .withUserConfiguration(OwnAnnotation.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              warmedUp(context);
              assertThat(groups(context)).doesNotContainKey("spring:notes");
            });
  }

  /** hazelcast-bean picks one of two members; a name that is no bean fails naming the property. */
  @Test
  void hazelcastBeanNamesTheMember() {
    runner()
        .withUserConfiguration(NoteApp.class, TwoMembers.class)
        .withPropertyValues("cuckooguard.cluster.hazelcast-bean=second")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              warmedUp(context);
              assertThat(groups(context, "second")).containsKey("spring:notes");
            });
    runner()
        .withUserConfiguration(NoteApp.class, TwoMembers.class)
        .run(
            context ->
                assertThat(messages(context))
                    .contains("2 HazelcastInstance beans [first, second]")
                    .contains("cuckooguard.cluster.hazelcast-bean=…"));
    runner()
        .withUserConfiguration(NoteApp.class, Member.class)
        .withPropertyValues("cuckooguard.cluster.hazelcast-bean=third")
        .run(
            context ->
                assertThat(messages(context))
                    .contains("cuckooguard.cluster.hazelcast-bean=third")
                    .contains("there is no bean named 'third'"));
  }

  /** enabled=true without a member fails the start instead of leaving the guards local. */
  @Test
  void enabledWithoutAMemberFailsTheStart() {
    runner()
        .withUserConfiguration(NoteApp.class)
        .withPropertyValues("cuckooguard.cluster.enabled=true")
        .run(
            context ->
                assertThat(messages(context))
                    .contains("cuckooguard.cluster.enabled=true is set")
                    .contains("no HazelcastInstance bean"));
  }

  /** A lease below the range fails the start naming the value and the range. */
  @Test
  void aBadLeaseFailsNamingValueAndRange() {
    runner()
        .withUserConfiguration(NoteApp.class, Member.class)
        .withPropertyValues("cuckooguard.cluster.lease-millis=10")
        .run(
            context -> {
              assertThat(context)
                  .getFailure()
                  .hasRootCauseInstanceOf(CuckooGuardPropertyException.class);
              assertThat(messages(context))
                  .contains("cuckooguard.cluster.lease-millis=10 is out of range")
                  .contains("at least 30 ms");
            });
  }

  /** A minimum-members outside [1, 1000] fails the start naming the property, value and range. */
  @Test
  void aBadMinimumMembersFailsNamingValueAndRange() {
    for (String bad : new String[] {"0", "-3", "1001"}) {
      runner()
          .withUserConfiguration(NoteApp.class, Member.class)
          .withPropertyValues("cuckooguard.cluster.minimum-members=" + bad)
          .run(
              context -> {
                assertThat(context)
                    .getFailure()
                    .hasRootCauseInstanceOf(CuckooGuardPropertyException.class);
                assertThat(messages(context))
                    .contains("cuckooguard.cluster.minimum-members=" + bad + " is out of range")
                    .contains("[1, 1000]");
              });
    }
    runner()
        .withUserConfiguration(NoteApp.class, Member.class)
        .withPropertyValues("cuckooguard.cluster.minimum-members=two")
        .run(
            context ->
                assertThat(messages(context))
                    .contains("cuckooguard.cluster.minimum-members")
                    .contains("two"));
  }

  /**
   * minimum-members=2: a context whose member is alone refuses a guarded add before the write (the
   * store does not get the note); once a second context's member is up, adds on either are in the
   * other's guard when they return and found there. Fails if the property is not handed to the
   * groups (the lone add then succeeds).
   */
  @Test
  void minimumMembersRefusesAddsOfALoneMemberAndTwoContextsWrite() throws Exception {
    ApplicationContextRunner guarded =
        runner()
            .withUserConfiguration(NoteApp.class, Member.class)
            .withPropertyValues(
                "cuckooguard.cluster.minimum-members=2", "cuckooguard.cluster.lease-millis=1000");
    guarded.run(
        a -> {
          assertThat(a).hasNotFailed();
          warmedUp(a);
          NoteStore alone = a.getBean(NoteStore.class);
          assertThatThrownBy(() -> alone.insert(-1L, "alone"))
              .isInstanceOf(IllegalStateException.class)
              .hasStackTraceContaining("fewer than minimumMembers (2)");
          assertThat(NoteStore.SHARED).doesNotContainKey(-1L);
          guarded.run(
              b -> {
                assertThat(b).hasNotFailed();
                warmedUp(b);
                Awaits.until(
                    "the group takes writes with two members",
                    Duration.ofSeconds(60),
                    () -> {
                      try {
                        alone.insert(-2L, "probe");
                        return true;
                      } catch (IllegalStateException refused) {
                        return false;
                      }
                    });
                crossAdds(a, b, 0);
                crossAdds(b, a, 1_000);
              });
        });
  }

  /** enabled=false beside the entity guards' instance is a contradiction. */
  @Test
  void disabledWithAnInstanceFailsTheStart() {
    runner()
        .withUserConfiguration(NoteApp.class)
        .withPropertyValues(
            "cuckooguard.cluster.enabled=false", "cuckooguard.cluster.instance=some-member")
        .run(
            context ->
                assertThat(messages(context))
                    .contains("cuckooguard.cluster.enabled=false")
                    .contains("cuckooguard.cluster.instance=some-member"));
  }

  /**
   * Adds 40 keys through {@code writer}: each is in {@code reader}'s guard when the add returns.
   */
  private static void crossAdds(
      ConfigurableApplicationContext writer, ConfigurableApplicationContext reader, long from) {
    NoteStore writes = writer.getBean(NoteStore.class);
    NoteStore reads = reader.getBean(NoteStore.class);
    CuckooGuard<Object> readerGuard = guard(reader);
    for (long id = from; id < from + 40; id++) {
      writes.insert(id, "note " + id);
      assertThat(readerGuard.mightContain(id)).as("key %d in the other guard", id).isTrue();
      assertThat(reads.find(id)).isEqualTo("note " + id);
    }
  }

  /** The messages of the start failure and its causes. */
  private static String messages(AssertableApplicationContext context) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
      b.append(t.getMessage()).append('\n');
    }
    return b.toString();
  }

  @SuppressWarnings("unchecked")
  private static CuckooGuard<Object> guard(ConfigurableApplicationContext context) {
    return context.getBean("notes", CuckooGuard.class);
  }

  private static void warmedUp(ConfigurableApplicationContext context) throws InterruptedException {
    CuckooGuard<Object> guard = guard(context);
    Awaits.until("warm-up of notes", Duration.ofSeconds(60), () -> !guard.isPassThrough());
  }

  private static HazelcastInstance member(ConfigurableApplicationContext context) {
    return context.getBean("hazelcastInstance", HazelcastInstance.class);
  }

  private static Map<String, ?> groups(ConfigurableApplicationContext context) {
    return groups(member(context));
  }

  private static Map<String, ?> groups(ConfigurableApplicationContext context, String bean) {
    return groups(context.getBean(bean, HazelcastInstance.class));
  }

  /** The groups joined on {@code member}: HazelcastGuardGroup keeps them in its user context. */
  private static Map<String, ?> groups(HazelcastInstance member) {
    Object groups = member.getUserContext().get(REGISTRY);
    @SuppressWarnings("unchecked")
    Map<String, ?> map = groups instanceof Map<?, ?> m ? (Map<String, ?>) m : Map.of();
    return map;
  }

  static HazelcastInstance newMember(@Nullable String clusterName) {
    Config config = new Config().setClusterName(String.valueOf(clusterName));
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "none");
    NetworkConfig network =
        config.getNetworkConfig().setPort(BASE_PORT).setPortAutoIncrement(true).setPortCount(10);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig()
        .setEnabled(true)
        .addMember("127.0.0.1:" + BASE_PORT)
        .addMember("127.0.0.1:" + (BASE_PORT + 1))
        .addMember("127.0.0.1:" + (BASE_PORT + 2));
    return Hazelcast.newHazelcastInstance(config);
  }

  /** A member made for the application's own use (caching, sessions), as Boot would make it. */
  @Configuration(proxyBeanMethods = false)
  static class Member {
    @Bean(destroyMethod = "shutdown")
    HazelcastInstance hazelcastInstance(Environment environment) {
      return newMember(environment.getProperty("test.cluster-name"));
    }
  }

  /** Two members of one cluster in one context. */
  @Configuration(proxyBeanMethods = false)
  static class TwoMembers {
    @Bean(destroyMethod = "shutdown")
    HazelcastInstance first(Environment environment) {
      return newMember(environment.getProperty("test.cluster-name"));
    }

    @Bean(destroyMethod = "shutdown")
    HazelcastInstance second(Environment environment) {
      return newMember(environment.getProperty("test.cluster-name"));
    }
  }

  /** An application declaring {@code @EnableCuckooGuard(cluster = false)} itself. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(cluster = false)
  @Import({NoteApp.class, Member.class})
  static class OwnAnnotation {}
}
