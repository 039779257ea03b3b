package io.github.cuckooguard.boot.app;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.KeySource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A Boot application with the starter, Spring Data JPA on H2, Actuator and Micrometer, and no
 * {@code @EnableCuckooGuard}. Besides the entity guard it has a guard declared by name ("books", on
 * {@link BookStore}) and a guard bean without a key source ("tokens"), whose pass-through state the
 * health tests control.
 */
@SpringBootApplication
public class GuardedApp {

  /** Runs the application (also the entry point of the AOT processing test). */
  public static void main(String[] args) {
    org.springframework.boot.SpringApplication.run(GuardedApp.class, args);
  }

  @Bean
  SimpleMeterRegistry simpleMeterRegistry() {
    return new SimpleMeterRegistry();
  }

  /** The key source of the {@code books} guard: every id of the book table. */
  @Bean
  KeySource<Long> bookKeys(JdbcTemplate jdbc) {
    return action -> jdbc.queryForList("select id from book", Long.class).forEach(action);
  }

  @Bean
  CuckooGuard<Long> tokens() {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .name("tokens")
        .expectedInsertions(1_000)
        .fpp(0.01)
        .build();
  }
}
