package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.HeldExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Async;

/**
 * Reviewer R13: guarded adds whose write runs later on an executor, at the edges of what
 * GuardInterceptor/WriteOutcome accept. Each context starts on main (40e5d87), and a rebuild that
 * scans before the executor's insert, followed by that insert, leaves the committed row answered
 * "absent". Deterministic ({@link HeldExecutor} holds the insert until the rebuild is over); 10
 * keys each. Each test passes if the start fails naming the method, or if 0 rows are absent.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsyncReturnedAtRunTimeTest {

  private static final int KEYS = 10;

  /** Adds that return a future of an executor's insert, in guard "users" of {@link JdbcConfig}. */
  public static class EdgeUsers {
    private final JdbcTemplate jdbc;
    private final HeldExecutor executor;

    public EdgeUsers(JdbcTemplate jdbc, HeldExecutor executor) {
      this.jdbc = jdbc;
      this.executor = executor;
    }

    private boolean insertOrFalse(User user) {
      try {
        jdbc.update("insert into users(id, name) values (?, ?)", user.id(), user.name());
        return true;
      } catch (DuplicateKeyException ex) {
        return false;
      }
    }

    /**
     * Declared {@code Object} (as a generic "command" method might be): the interceptor takes the
     * synchronous path, ends the enter at the return and only logs that the Future is still running
     * (GuardInterceptor.warnIfStillRunning).
     */
    @GuardedAdd(guard = "users", key = "#user.id")
    public Object insertUntyped(User user) {
      return CompletableFuture.supplyAsync(() -> insertOrFalse(user), executor);
    }

    /**
     * {@code @Async} returning a plain {@code Future}: WriteOutcome accepts it on the assumption
     * that Spring's async advice runs outside the guard's. The context below has no
     * {@code @EnableAsync}, so the annotation does nothing and the guard runs on the caller's
     * thread while the insert waits on the executor.
     */
    @Async
    @GuardedAdd(guard = "users", key = "#user.id")
    public Future<Boolean> insertAsync(User user) {
      FutureTask<Boolean> task = new FutureTask<>(() -> insertOrFalse(user));
      executor.execute(task);
      return task;
    }
  }

  /** No {@code @EnableAsync}. */
  @Configuration(proxyBeanMethods = false)
  @Import({JdbcConfig.class, EdgeUsers.class})
  static class EdgeConfig {
    @Bean
    HeldExecutor heldExecutor() {
      return new HeldExecutor();
    }
  }

  /**
   * Rows whose insert (started by {@code write}, held on the executor) ran after a rebuild and that
   * the guard then answers absent for; empty if the context does not start (the start failure must
   * name {@code method}).
   */
  private static List<Long> absentAfterARebuildBeforeTheInsert(
      String method, BiFunction<EdgeUsers, Long, Future<?>> write) throws Exception {
    String url = H2.newUrl();
    List<Long> absent = new ArrayList<>();
    AnnotationConfigApplicationContext started;
    try {
      started = Contexts.start(url, EdgeConfig.class);
    } catch (RuntimeException ex) {
      StringBuilder messages = new StringBuilder();
      for (Throwable t = ex; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      assertThat(messages.toString()).contains(method);
      return absent;
    }
    try (AnnotationConfigApplicationContext context = started) {
      EdgeUsers users = context.getBean(EdgeUsers.class);
      HeldExecutor executor = context.getBean(HeldExecutor.class);
      @SuppressWarnings("unchecked")
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      for (long id = 1; id <= KEYS; id++) {
        executor.hold();
        Future<?> future = write.apply(users, id);
        guard.rebuild().get(30, TimeUnit.SECONDS);
        assertThat(H2.committedRowExists(url, id)).as("scanned before row %s", id).isFalse();
        executor.release();
        future.get(30, TimeUnit.SECONDS);
        assertThat(H2.committedRowExists(url, id)).as("row %s committed", id).isTrue();
        if (!guard.mightContain(id)) {
          absent.add(id);
        }
      }
      executor.release();
    }
    return absent;
  }

  /**
   * Main: 10 of 10 committed rows absent. Suspected code: GuardInterceptor.add, the synchronous
   * path, which sees at run time that the result is an unfinished CompletionStage (it warns) but
   * ends the enter anyway; it could hold the enter as addLater does.
   */
  @Test
  void addDeclaredObjectReturningARunningFutureLosesTheKeyToARebuild() throws Exception {
    List<Long> absent =
        absentAfterARebuildBeforeTheInsert(
            "insertUntyped",
            (users, id) -> (Future<?>) users.insertUntyped(new User(id, "u" + id)));
    assertThat(absent).as("committed rows answered absent (of %d)", KEYS).isEmpty();
  }

  /**
   * Main: 10 of 10 committed rows absent. Suspected code: WriteOutcome.unobservable/isAsync, which
   * accepts a plain Future because of the {@code @Async} annotation alone, without checking that an
   * async advisor applies (no {@code @EnableAsync}, {@code mode = ASPECTJ}, another annotation type
   * configured).
   */
  @Test
  void asyncAnnotatedFutureWithoutEnableAsyncLosesTheKeyToARebuild() throws Exception {
    List<Long> absent =
        absentAfterARebuildBeforeTheInsert(
            "insertAsync", (users, id) -> users.insertAsync(new User(id, "u" + id)));
    assertThat(absent).as("committed rows answered absent (of %d)", KEYS).isEmpty();
  }
}
