package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.boot.app.BookStore;
import io.github.cuckooguard.boot.app.GuardedApp;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A rebuild whose real key source throws (its {@code select id from book} meets a renamed table):
 * the guard turns pass-through, the failure is counted ({@code GuardStats.rebuildFailures}, the
 * {@code cuckooguard.rebuilds{result=failure}} meter), and health is OUT_OF_SERVICE with the
 * reason; once the table is back, a rebuild succeeds and health is UP again. Rows inserted while
 * the guard was degraded are found afterwards.
 */
@SpringBootTest(classes = GuardedApp.class)
@DirtiesContext
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RebuildFailureHealthTest {

  @Autowired BookStore books;

  @Autowired
  @Qualifier("books")
  CuckooGuard<Object> guard;

  @Autowired JdbcTemplate jdbc;
  @Autowired MeterRegistry registry;
  @Autowired ApplicationContext context;
  @Autowired CuckooGuardEndpoint endpoint;

  @Test
  void failedRebuildIsCountedAndMakesHealthDegradedWithTheReason() throws InterruptedException {
    Awaits.until("warm-up of books", Duration.ofSeconds(60), () -> !guard.isPassThrough());
    books.insert(1, "one");
    assertThat(guard.stats().rebuildFailures()).isZero();
    assertThat(failureCounter()).isZero();

    jdbc.execute("alter table book rename to book_away");
    assertThatThrownBy(() -> guard.rebuild().join())
        .hasRootCauseMessage(rootMessageOfMissingTable());
    jdbc.execute("alter table book_away rename to book");

    assertThat(guard.stats().rebuildFailures()).isEqualTo(1);
    assertThat(failureCounter()).isEqualTo(1);
    assertThat(registry.get("cuckooguard.rebuild.failed").tags("guard", "books").gauge().value())
        .isEqualTo(1);
    assertThat(guard.isPassThrough()).as("a failed rebuild leaves the guard pass-through").isTrue();
    assertThat(endpoint.guard("books")).containsEntry("rebuildFailures", 1L);
    HealthProbe.Reading degraded = HealthProbe.read(context);
    assertThat(degraded.status()).isEqualTo("OUT_OF_SERVICE");
    @SuppressWarnings("unchecked")
    Map<String, Object> detail = (Map<String, Object>) degraded.details().get("books");
    assertThat((String) detail.get("reason"))
        .startsWith("last rebuild failed")
        .contains("select id from book");
    assertThat(detail).containsEntry("rebuildFailures", 1L);

    books.insert(2, "two"); // written while degraded: followed all the same
    guard.rebuild().join();
    assertThat(guard.isPassThrough()).isFalse();
    assertThat(books.title(1)).contains("one");
    assertThat(books.title(2)).contains("two");
    assertThat(guard.stats().rebuildFailures())
        .as("a success does not reset the count")
        .isEqualTo(1);
    assertThat(
            registry
                .get("cuckooguard.rebuilds")
                .tags("guard", "books", "result", "success")
                .functionCounter()
                .count())
        .isGreaterThanOrEqualTo(2);
    assertThat(((Map<?, ?>) HealthProbe.read(context).details().get("books")).get("reason"))
        .isNull();
  }

  private double failureCounter() {
    return registry
        .get("cuckooguard.rebuilds")
        .tags("guard", "books", "result", "failure")
        .functionCounter()
        .count();
  }

  private String rootMessageOfMissingTable() {
    try {
      jdbc.queryForList("select id from book", Long.class);
    } catch (RuntimeException ex) {
      Throwable root = ex;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      return root.getMessage();
    }
    throw new AssertionError("the table is still there");
  }
}
