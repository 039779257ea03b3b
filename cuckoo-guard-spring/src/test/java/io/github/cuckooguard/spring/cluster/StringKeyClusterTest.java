package io.github.cuckooguard.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.H2;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Text keys across instances: instance A adds {@code "AB0".."AB9"} to a case-insensitive column,
 * and instance B (which had the enters replicated: keys, funnelled on B by B's own canonical
 * funnel) and instance C (which joins afterwards and takes A's or B's dump: fingerprints hashed by
 * the canonical funnel elsewhere) are asked for {@code "ab0".."ab9"}. Run on the code before text
 * keys were canonicalized, B reported 10 of 10 absent (C was not reached); 0 of 10 on B and on C
 * after. Three application contexts, three embedded Hazelcast members on 127.0.0.1, one H2
 * database.
 */
class StringKeyClusterTest {

  private static final int KEYS = 10;

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterLeaseMillis = ClusterConfigs.LEASE_MILLIS)
  @Import(ClusterNameRepository.class)
  static class Names {
    @Bean
    DataSource dataSource(@Qualifier("h2Url") String url) {
      return H2.dataSource(url);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void keysAddedOnOneInstanceAreFoundInAnotherCaseOnTheOthers() {
    String url = H2.newUrl();
    H2.execute(url, "create table names(k varchar_ignorecase(20) primary key)");
    try (ClusterMembers cluster = new ClusterMembers()) {
      ClusterNameRepository onA = names(cluster.context(url, cluster.member(), Names.class));
      ClusterNameRepository onB = names(cluster.context(url, cluster.member(), Names.class));
      awaitAnswersAbsent("B", onB);
      awaitAnswersAbsent("A", onA);
      for (int i = 0; i < KEYS; i++) {
        assertThat(onA.insert("AB" + i)).isTrue();
      }
      assertThat(absent(onB)).as("rows reported absent on B").isZero();

      ClusterNameRepository onC = names(cluster.context(url, cluster.member(), Names.class));
      awaitAnswersAbsent("C", onC);
      assertThat(absent(onC)).as("rows reported absent on C, joined later").isZero();
    }
  }

  private static ClusterNameRepository names(AnnotationConfigApplicationContext context) {
    return context.getBean(ClusterNameRepository.class);
  }

  /** Until a find of a key that no instance adds is answered without running its query. */
  private static void awaitAnswersAbsent(String instance, ClusterNameRepository names) {
    Await.until(
        instance + "'s guard answers absent",
        () -> {
          int before = names.finds();
          names.find("never-added");
          return names.finds() == before;
        });
  }

  private static int absent(ClusterNameRepository names) {
    int absent = 0;
    for (int i = 0; i < KEYS; i++) {
      if (names.find("ab" + i).isEmpty()) {
        absent++;
      }
    }
    return absent;
  }
}
