package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A guard fed by a {@link KeySource} bean (here a fixed key set standing for any store), with the
 * guard injected by name into another bean; no spring-tx transaction is involved.
 */
class KeySourceBeanTest {

  /** A repository over a fixed key set 1..100 that counts the calls reaching it. */
  @CuckooGuarded(name = "catalog", keySource = "catalogKeys")
  public static class Catalog {
    private final CallCounter calls;

    public Catalog(CallCounter calls) {
      this.calls = calls;
    }

    @GuardedFind
    public Optional<String> find(long id) {
      calls.find();
      return id >= 1 && id <= 100 ? Optional.of("item " + id) : Optional.empty();
    }
  }

  /** A bean that gets the guard injected by name. */
  public static class GuardUser {
    final CuckooGuard<Object> guard;

    @Autowired
    public GuardUser(@Qualifier("catalog") CuckooGuard<Object> guard) {
      this.guard = guard;
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  @Import({Catalog.class, GuardUser.class})
  static class Config {
    @Bean
    CallCounter callCounter() {
      return new CallCounter();
    }

    @Bean
    KeySource<Long> catalogKeys() {
      return action -> LongStream.rangeClosed(1, 100).forEach(action::accept);
    }
  }

  @Test
  void keySourceBeanFeedsTheWarmUpAndTheGuardIsInjectableByName() {
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(Config.class)) {
      Catalog catalog = context.getBean(Catalog.class);
      CallCounter calls = context.getBean(CallCounter.class);
      CuckooGuard<Object> guard = context.getBean(GuardUser.class).guard;
      assertThat(guard).isSameAs(context.getBean("catalog"));
      Await.until("warm-up", () -> !guard.isPassThrough());

      for (long id = 1; id <= 100; id++) {
        assertThat(catalog.find(id)).contains("item " + id);
      }
      long miss = 1_000;
      while (guard.mightContain(miss)) {
        miss++;
      }
      int finds = calls.finds();
      assertThat(catalog.find(miss)).isEmpty();
      assertThat(calls.finds()).as("short-circuited").isEqualTo(finds);
      assertThat(guard.stats().size()).isEqualTo(100);
    }
  }
}
