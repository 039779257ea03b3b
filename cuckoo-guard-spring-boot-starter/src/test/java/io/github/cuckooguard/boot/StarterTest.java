package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.boot.app.Customer;
import io.github.cuckooguard.boot.app.CustomerRepository;
import io.github.cuckooguard.boot.app.GuardedApp;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import io.github.cuckooguard.spring.internal.ProxyCuckooGuardConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManagerFactory;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

/**
 * Issue 15: a Boot 4.0 application with the starter alone (no {@code @EnableCuckooGuard}), Spring
 * Data JPA on H2, Actuator and a SimpleMeterRegistry: the guard is on, an absent findById runs no
 * SQL, the meters and the endpoint read what the guard did, and the settings from
 * application.properties reach Hibernate.
 */
@SpringBootTest(classes = GuardedApp.class)
class StarterTest {

  @Autowired ApplicationContext context;
  @Autowired CustomerRepository customers;
  @Autowired EntityManagerFactory entityManagerFactory;
  @Autowired GuardCatalog catalog;
  @Autowired MeterRegistry registry;
  @Autowired CuckooGuardEndpoint endpoint;

  private Statistics statistics;

  @BeforeEach
  void warmUp() throws InterruptedException {
    SessionFactory sessionFactory = entityManagerFactory.unwrap(SessionFactory.class);
    assertThat(HibernateCuckooGuards.of(sessionFactory).awaitWarmUp(Duration.ofSeconds(30)))
        .isTrue();
    statistics = sessionFactory.getStatistics();
  }

  @Test
  void theStarterAloneTurnsTheGuardsOn() {
    assertThat(GuardedApp.class.getAnnotation(io.github.cuckooguard.spring.EnableCuckooGuard.class))
        .isNull();
    assertThat(context.containsBean(ProxyCuckooGuardConfiguration.REGISTRY_BEAN_NAME)).isTrue();
    assertThat(catalog.guards()).containsKeys("Customer", "tokens", "books");
    assertThat(catalog.guard("Customer").kind()).isEqualTo(GuardView.Kind.ENTITY);
    assertThat(catalog.guard("tokens").kind()).isEqualTo(GuardView.Kind.BEAN);
  }

  @Test
  void findByIdOfAnAbsentIdRunsNoSql() {
    statistics.clear();
    assertThat(customers.findById(404_404L)).isEmpty();
    assertThat(statistics.getPrepareStatementCount()).as("statements for an absent id").isZero();

    customers.save(new Customer(7, "alice"));
    assertThat(customers.findById(7L)).get().extracting(Customer::getName).isEqualTo("alice");
  }

  @Test
  void metersReadWhatTheGuardDid() {
    assertThat(customers.findById(505_505L)).isEmpty();
    long misses = catalog.guard("Customer").stats().definiteMisses();
    assertThat(misses).isPositive();
    assertThat(
            registry
                .get("cuckooguard.lookups")
                .tags("guard", "Customer", "kind", "entity", "result", "definite-miss")
                .functionCounter()
                .count())
        .isEqualTo(misses);
    assertThat(
            registry
                .get("cuckooguard.lookups")
                .tags("guard", "Customer", "result", "might-contain")
                .functionCounter()
                .count())
        .isGreaterThanOrEqualTo(0);
    assertThat(registry.get("cuckooguard.pass.through").tags("guard", "Customer").gauge().value())
        .isZero();
    assertThat(registry.get("cuckooguard.size.bytes").tags("guard", "Customer").gauge().value())
        .isPositive();
    assertThat(
            registry
                .get("cuckooguard.rebuilds")
                .tags("guard", "Customer", "result", "success")
                .functionCounter()
                .count())
        .as("the warm-up is a rebuild")
        .isGreaterThanOrEqualTo(1);
    assertThat(
            registry
                .get("cuckooguard.fpp")
                .tags("guard", "tokens", "estimate", "expected")
                .gauge()
                .value())
        .isEqualTo(0.01);
    assertThat(registry.get("cuckooguard.load").tags("guard", "tokens").gauge().value()).isZero();
    assertThat(
            registry
                .find("cuckooguard.rebuild.last.duration")
                .tags("guard", "Customer")
                .timeGauge())
        .isNotNull();
    assertThat(registry.get("cuckooguard.rebuild.failed").tags("guard", "Customer").gauge().value())
        .isZero();
  }

  @Test
  void endpointReadsEachGuardsStats() {
    assertThat(customers.findById(606_606L)).isEmpty();
    Map<String, Map<String, Object>> all = endpoint.guards();
    assertThat(all).containsKeys("Customer", "tokens");
    assertThat((Long) all.get("Customer").get("definiteMisses")).isPositive();
    assertThat(endpoint.guard("tokens"))
        .containsEntry("expectedFpp", 0.01)
        .containsEntry("passThrough", false);
  }

  @Test
  void hibernateSettingsFromApplicationPropertiesReachHibernate() {
    Map<String, Object> properties = entityManagerFactory.getProperties();
    assertThat(properties)
        .containsEntry("hibernate.cuckoo.fpp", "0.001")
        .containsEntry("hibernate.cuckoo.expected-insertions", "5000");
  }

  @Test
  void configurationMetadataIsGenerated() throws Exception {
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).isNotNull();
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(json)
          .contains("\"cuckooguard.enabled\"")
          .contains("\"cuckooguard.hibernate\"")
          .contains("\"cuckooguard.metrics.enabled\"");
    }
  }
}
