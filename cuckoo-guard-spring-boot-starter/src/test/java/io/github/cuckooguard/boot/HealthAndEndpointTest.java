package io.github.cuckooguard.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.cuckooguard.boot.app.GuardedApp;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The health indicator is UP while every guard filters and OUT_OF_SERVICE, with the reason, once
 * the endpoint's write operation marks a guard stale; the "tokens" guard has no key source, so it
 * stays pass-through (deterministic). The context is dirtied afterwards, since the test leaves a
 * guard degraded and the cached context is shared with {@link StarterTest}.
 */
@SpringBootTest(classes = GuardedApp.class)
@DirtiesContext
class HealthAndEndpointTest {

  @Autowired ApplicationContext context;
  @Autowired CuckooGuardEndpoint endpoint;
  @Autowired EntityManagerFactory entityManagerFactory;
  @Autowired GuardCatalog catalog;

  @Test
  void markStaleThroughTheEndpointTurnsTheHealthOutOfService() throws InterruptedException {
    SessionFactory sessionFactory = entityManagerFactory.unwrap(SessionFactory.class);
    assertThat(HibernateCuckooGuards.of(sessionFactory).awaitWarmUp(Duration.ofSeconds(30)))
        .isTrue();
    GuardView books = catalog.guard("books");
    Awaits.until("warm-up of books", Duration.ofSeconds(60), () -> !books.stats().passThrough());
    HealthProbe.Reading up = HealthProbe.read(context);
    assertThat(up.status()).isEqualTo("UP");
    assertThat(up.details()).containsKeys("Customer", "tokens");

    Map<String, Object> after = endpoint.action("tokens", "markStale");
    assertThat(after).containsEntry("passThrough", true);

    HealthProbe.Reading degraded = HealthProbe.read(context);
    assertThat(degraded.status()).isEqualTo("OUT_OF_SERVICE");
    @SuppressWarnings("unchecked")
    Map<String, Object> tokens = (Map<String, Object>) degraded.details().get("tokens");
    assertThat(tokens).containsEntry("passThrough", true);
    assertThat((String) tokens.get("reason")).contains("pass-through");
    @SuppressWarnings("unchecked")
    Map<String, Object> customer = (Map<String, Object>) degraded.details().get("Customer");
    assertThat(customer).doesNotContainKey("reason");
  }

  @Test
  void unknownGuardOrActionIsRejectedWithTheAcceptedNames() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> endpoint.guard("nope"))
        .withMessageContaining("Customer")
        .withMessageContaining("tokens");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> endpoint.action("Customer", "explode"))
        .withMessageContaining("rebuild and markStale");
  }
}
