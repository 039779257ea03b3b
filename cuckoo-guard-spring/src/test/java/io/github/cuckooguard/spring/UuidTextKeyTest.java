package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
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
 * A guard of {@code UUID} keys (a {@code uuid} column) and a finder that is given the key as text.
 * The funnel hashes a {@code UUID} as its 36-character lowercase form and a {@code String} as its
 * folded self, but the database parses the text into a UUID: H2 (as PostgreSQL) accepts the 32 hex
 * digits without hyphens (and PostgreSQL braces), and finds the row. {@code UUID} is therefore a
 * key kind of its own ({@code KeyKinds.UUIDS}): a text key on a guard of UUIDs passes through (a
 * finder declared {@code String} fails the start). Found by a reviewer: with UUIDs counted as text,
 * 10 of 10 rows answered "absent"; 0 after.
 */
@Timeout(60)
class UuidTextKeyTest {

  private static final int KEYS = 10;

  @CuckooGuarded(name = "tokens")
  public static class TokenRepository {
    private final JdbcTemplate jdbc;

    public TokenRepository(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @GuardedAdd
    public boolean insert(UUID id) {
      return jdbc.update("insert into tokens(id) values (?)", id) > 0;
    }

    /** The token as the web layer has it (text here), declared Object: the start cannot tell. */
    @GuardedFind
    public Optional<UUID> find(Object id) {
      return jdbc.queryForList("select id from tokens where id = ?", UUID.class, id).stream()
          .findFirst();
    }

    @GuardKeySource
    public List<UUID> allIds() {
      return jdbc.queryForList("select id from tokens", UUID.class);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  @Import(TokenRepository.class)
  static class TokenConfig {
    @Bean
    DataSource dataSource(@Qualifier("h2Url") String url) {
      return H2.dataSource(url);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }
  }

  /**
   * 10 random UUIDs (seed 13) added through the guarded insert, then found by their 32 hex digits
   * without hyphens: the database finds every row (asked outside the guard), the guarded finder
   * must too. Seen on main 24cd472: 10 of 10 answered "absent" (Optional.empty, no query).
   */
  @Test
  void uuidKeysAreFoundByTheTextTheDatabaseAccepts() {
    String url = H2.newUrl();
    H2.execute(url, "create table tokens(id uuid primary key)");
    Random random = new Random(13);
    try (AnnotationConfigApplicationContext context = Contexts.start(url, TokenConfig.class)) {
      TokenRepository tokens = context.getBean(TokenRepository.class);
      @SuppressWarnings("unchecked")
      CuckooGuard<Object> guard = context.getBean("tokens", CuckooGuard.class);
      Await.until("warm-up of tokens", () -> !guard.isPassThrough());
      JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
      List<String> found = new ArrayList<>();
      List<String> absent = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        UUID id = new UUID(random.nextLong(), random.nextLong());
        assertThat(tokens.insert(id)).isTrue();
        String asked = id.toString().replace("-", "");
        if (!jdbc.queryForList("select id from tokens where id = ?", UUID.class, asked).isEmpty()) {
          found.add(asked);
          if (tokens.find(asked).isEmpty()) {
            absent.add(asked);
          }
        }
      }
      assertThat(found).as("rows the database finds by the unhyphenated text").hasSize(KEYS);
      assertThat(absent)
          .as("keys the database finds answered absent (%s of %s)", absent.size(), KEYS)
          .isEmpty();
    }
  }
}
