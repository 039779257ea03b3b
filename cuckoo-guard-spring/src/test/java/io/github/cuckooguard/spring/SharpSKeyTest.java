package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Found by a reviewer (10 + 10 of 20 answered "absent" on main at 24cd472, 0 after): text keys that
 * the database equates but {@link io.github.cuckooguard.spring.internal.CanonicalKeyFunnel} folded
 * apart.
 *
 * <p>The fold upper-cases with {@code String.toUpperCase(Locale.ROOT)} and then lower-cases: {@code
 * ß} becomes {@code ss}, but the capital sharp s {@code ẞ} (U+1E9E) has no upper-case expansion and
 * lower-cases to {@code ß}, so "ẞ…" folds to "ß…" while "ß…" folds to "ss…". H2's {@code
 * VARCHAR_IGNORECASE} (Java's {@code compareToIgnoreCase}: per character upper, then lower) finds
 * the row "ẞ…" for "ß…" and the other way round, as case-insensitive collations elsewhere do.
 */
@Timeout(60)
class SharpSKeyTest {

  private static final int KEYS = 10;

  /**
   * 10 names "ẞtraße{i}" added through the guarded insert (and 10 "straße{i}" in the reverse
   * direction), then looked up as "ßtraße{i}" / "STRAẞE{i}": the database finds every row (checked
   * with the same query outside the guard), the guarded finder must too. Seen on main 24cd472: 10
   * of 10 and 10 of 10 answered "absent" although the query finds the row.
   */
  @Test
  void capitalSharpSKeyIsFoundByItsSmallSharpSForm() {
    String url = H2.newUrl();
    H2.execute(url, "create table names(k varchar_ignorecase(20) primary key)");
    try (AnnotationConfigApplicationContext context =
        Contexts.start(url, StringKeyTest.NameConfig.class)) {
      StringKeyTest.NameRepository names = context.getBean(StringKeyTest.NameRepository.class);
      @SuppressWarnings("unchecked")
      CuckooGuard<Object> guard = context.getBean("names", CuckooGuard.class);
      Await.until("warm-up of names", () -> !guard.isPassThrough());
      for (int i = 0; i < KEYS; i++) {
        assertThat(names.insert("\u1E9Etra\u00DFe" + i)).isTrue();
        assertThat(names.insert("stra\u00DFe" + (i + KEYS))).isTrue();
      }
      JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
      List<String> found = new ArrayList<>();
      List<String> absent = new ArrayList<>();
      for (int i = 0; i < 2 * KEYS; i++) {
        String asked = i < KEYS ? "\u00DFtra\u00DFe" + i : "STRA\u1E9EE" + i;
        if (!jdbc.queryForList("select k from names where k = ?", String.class, asked).isEmpty()) {
          found.add(asked);
          if (names.find(asked).isEmpty()) {
            absent.add(asked);
          }
        }
      }
      assertThat(found).as("rows the database finds for the asked keys").hasSize(2 * KEYS);
      assertThat(absent)
          .as("keys the database finds answered absent (%s of %s)", absent.size(), 2 * KEYS)
          .isEmpty();
    }
  }
}
