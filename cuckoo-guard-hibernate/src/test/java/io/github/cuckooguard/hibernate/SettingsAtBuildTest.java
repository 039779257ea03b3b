package io.github.cuckooguard.hibernate;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.hibernate.model.Book;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A misspelled {@code hibernate.cuckoo.*} setting fails the session factory build, naming the
 * accepted ones.
 */
class SettingsAtBuildTest {

  @Test
  void misspelledSettingFailsTheSessionFactoryBuild() {
    assertThatThrownBy(
            () ->
                Db.configuration(
                        Db.newUrl(),
                        new SqlCounter(),
                        Map.of("hibernate.cuckoo.enable", "true"),
                        Book.class)
                    .buildSessionFactory()
                    .close())
        .hasStackTraceContaining("unknown setting hibernate.cuckoo.enable=true")
        .hasStackTraceContaining("enabled")
        .hasStackTraceContaining("expected-insertions");
  }
}
