package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.KeyScanHook;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.Latch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * The warm-up: a database that already holds rows when the application starts. The guard scans them
 * once the context is refreshed, and finders run unguarded until the scan ends.
 */
class WarmUpTest {

  private static final int ROWS = 3_000;

  @Test
  @SuppressWarnings("unchecked")
  void existingRowsAreLoadedAfterRefreshAndFindersPassThroughMeanwhile() {
    String url = H2.newUrl();
    JdbcConfig.createSchema(url);
    H2.execute(
        url,
        "insert into users(id, name) select x, 'user ' || x from system_range(1, " + ROWS + ")");

    AtomicBoolean refreshed = new AtomicBoolean();
    AtomicBoolean scanSawRefreshedContext = new AtomicBoolean();
    Latch scanStarted = new Latch();
    Latch releaseScan = new Latch();
    KeyScanHook hook = new KeyScanHook();
    hook.beforeScan(
        () -> {
          scanSawRefreshedContext.set(refreshed.get());
          scanStarted.open();
          releaseScan.await();
        });
    try (AnnotationConfigApplicationContext context =
        Contexts.start(
            url,
            c -> {
              c.registerBean(KeyScanHook.class, () -> hook);
              c.registerBean(
                  "refreshListener",
                  ApplicationListener.class,
                  () -> (ApplicationListener<ContextRefreshedEvent>) event -> refreshed.set(true));
            },
            JdbcConfig.class)) {
      JdbcUserRepository users = context.getBean(JdbcUserRepository.class);
      CallCounter calls = context.getBean(CallCounter.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);

      scanStarted.await();
      assertThat(scanSawRefreshedContext).as("the scan waited for the refreshed context").isTrue();
      assertThat(guard.isPassThrough()).isTrue();
      int finds = calls.finds();
      assertThat(users.findById(7)).isEqualTo(new User(7, "user 7"));
      assertThat(users.findById(ROWS + 1_000_000)).isNull();
      assertThat(calls.finds() - finds).as("both finders ran during the warm-up").isEqualTo(2);
      assertThat(users.insert(new User(ROWS + 1, "added during the warm-up"))).isTrue();

      releaseScan.open();
      Await.until("warm-up", () -> !guard.isPassThrough());

      for (long id = 1; id <= ROWS + 1; id++) {
        assertThat(guard.mightContain(id)).as("row %s", id).isTrue();
      }
      assertThat(guard.stats().size()).isGreaterThanOrEqualTo(ROWS + 1);
      assertThat(guard.stats().rebuilds()).isEqualTo(1);
      long miss = ROWS + 2_000_000;
      while (guard.mightContain(miss)) {
        miss++;
      }
      finds = calls.finds();
      assertThat(users.findById(miss)).isNull();
      assertThat(calls.finds()).as("short-circuited after the warm-up").isEqualTo(finds);
    }
  }
}
