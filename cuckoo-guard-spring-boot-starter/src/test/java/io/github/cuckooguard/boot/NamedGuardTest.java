package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.boot.app.BookStore;
import io.github.cuckooguard.boot.app.GuardedApp;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A guard declared with {@code @CuckooGuarded(name = "books")} in a Boot application: its settings
 * come from {@code cuckooguard.guards.books.*} in application.properties (over the annotation's
 * fpp), it is in the catalog, and present rows are found while absent ones are answered by the
 * guard.
 */
@SpringBootTest(classes = GuardedApp.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NamedGuardTest {

  @Autowired BookStore books;

  @Autowired
  @Qualifier("books")
  CuckooGuard<Object> guard;

  @Autowired GuardCatalog catalog;

  @BeforeEach
  void warmUp() throws InterruptedException {
    Awaits.until("warm-up of books", Duration.ofSeconds(60), () -> !guard.isPassThrough());
  }

  @Test
  void settingsFromTheEnvironmentOverrideTheAnnotation() {
    assertThat(guard.spec().fpp())
        .as("cuckooguard.guards.books.fpp over @CuckooGuarded(fpp = 0.05)")
        .isEqualTo(0.002);
    assertThat(guard.spec().expectedInsertions()).isEqualTo(20_000);
    assertThat(catalog.guard("books").kind()).isEqualTo(GuardView.Kind.BEAN);
    assertThat(catalog.guard("books").expectedFpp()).isEqualTo(0.002);
  }

  @Test
  void presentRowsAreFoundAndAbsentOnesShortCircuit() {
    for (long id = 1; id <= 50; id++) {
      books.insert(id, "title " + id);
    }
    for (long id = 1; id <= 50; id++) {
      assertThat(books.title(id)).as("row %d", id).contains("title " + id);
    }
    long miss = 1_000_000L;
    while (guard.mightContain(miss)) {
      miss++;
    }
    long before = guard.stats().definiteMisses();
    assertThat(books.title(miss)).isEmpty();
    assertThat(guard.stats().definiteMisses())
        .as("the finder asked the guard, which answered absent")
        .isEqualTo(before + 1);
    for (long id = 1; id <= 50; id++) {
      books.delete(id);
    }
  }
}
