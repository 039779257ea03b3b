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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Async;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Guarded adds declared synchronous (their return type is not {@code CompletableFuture} or {@code
 * CompletionStage}) that return, at run time, a future whose insert still waits on an executor; a
 * rebuild scans before that insert, which then commits. The guard used to end the enter at the
 * return (or at the caller's commit, or abort it at the caller's rollback), so the rebuild swapped
 * in a filter without the key and the committed row was answered "definitely absent". First found
 * by reviewer R13 ({@code ReviewAsyncTest} on r13-review: the first two tests here, unchanged but
 * for their names and the in-flight checks).
 *
 * <p>Measured on main 40e5d87 (before the fix), {@value #KEYS} keys each: 10 of 10 absent for an
 * {@code Object} method returning {@code supplyAsync}, 10 of 10 for an {@code @Async} method
 * returning a {@code FutureTask} without {@code @EnableAsync}, 10 of 10 in the caller's committed
 * transaction, 10 of 10 after the caller's rollback, 10 of 10 for a {@code CompletableFuture}
 * subtype returned as an interface; after the caller's {@code cancel} of an {@code Object} method's
 * future the insert never ran (the caller held the method's own stage: the test timed out waiting
 * for row 1), and a cancelled interface-typed stage left 10 of 10 absent. After: 0 in each; an
 * {@code Object} method's enters all end (0 in flight), a plain {@code Future}'s stay in flight for
 * good (10 of 10, a false positive only). Deterministic: a {@link HeldExecutor} holds each insert
 * until the rebuild is over (no timing); single instance, H2, the key scan on its own connection.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsyncReturnedAtRunTimeTest {

  private static final int KEYS = 10;

  /** A command type that is not a future; {@link CommandFuture} is both. */
  public interface Command {}

  /** A {@code CompletableFuture} the caller sees only as a {@link Command}. */
  public static final class CommandFuture extends CompletableFuture<Boolean> implements Command {}

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
     * synchronous path, and sees the running stage only at the return.
     */
    @GuardedAdd(guard = "users", key = "#user.id")
    public Object insertUntyped(User user) {
      return CompletableFuture.supplyAsync(() -> insertOrFalse(user), executor);
    }

    /**
     * {@code @Async} returning a plain {@code Future}: accepted at startup on the assumption that
     * Spring's async advice runs outside the guard's. The context below has no {@code
     * {@literal @}EnableAsync}, so the annotation does nothing and the guard runs on the caller's
     * thread while the insert waits on the executor.
     */
    @Async
    @GuardedAdd(guard = "users", key = "#user.id")
    public Future<Boolean> insertAsync(User user) {
      FutureTask<Boolean> task = new FutureTask<>(() -> insertOrFalse(user));
      executor.execute(task);
      return task;
    }

    /**
     * Declared as an interface that the guard's own stage does not implement: the caller keeps the
     * method's stage.
     */
    @GuardedAdd(guard = "users", key = "#user.id")
    public Command insertCommand(User user) {
      CommandFuture future = new CommandFuture();
      executor.execute(
          () -> {
            try {
              future.complete(insertOrFalse(user));
            } catch (RuntimeException ex) {
              future.completeExceptionally(ex);
            }
          });
      return future;
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

  /** Starts the write of {@code id}; returns a future that completes after its insert. */
  private interface Write {
    Future<?> start(EdgeUsers users, TransactionTemplate tx, long id);
  }

  /** What a run left: rows answered absent, and the enters still in flight at its end. */
  private record Run(List<Long> absent, long inFlight) {}

  /**
   * Rows whose insert (started by {@code write}, held on the executor) ran after a rebuild and that
   * the guard then answers absent for, and the guard's enters in flight at the end.
   */
  private static Run rebuildBeforeEachInsert(Write write) throws Exception {
    String url = H2.newUrl();
    List<Long> absent = new ArrayList<>();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, EdgeConfig.class)) {
      EdgeUsers users = context.getBean(EdgeUsers.class);
      HeldExecutor executor = context.getBean(HeldExecutor.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      @SuppressWarnings("unchecked")
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      for (long id = 1; id <= KEYS; id++) {
        executor.hold();
        Future<?> future = write.start(users, tx, id);
        guard.rebuild().get(30, TimeUnit.SECONDS);
        assertThat(H2.committedRowExists(url, id)).as("scanned before row %s", id).isFalse();
        executor.release();
        try {
          future.get(30, TimeUnit.SECONDS);
        } catch (CancellationException | ExecutionException cancelled) {
          long row = id;
          Await.until("row " + row + " committed", () -> H2.committedRowExists(url, row));
        }
        assertThat(H2.committedRowExists(url, id)).as("row %s committed", id).isTrue();
        if (!guard.mightContain(id)) {
          absent.add(id);
        }
      }
      executor.release();
      // a rebuild after every insert: a key whose enter ended is scanned, one in flight is kept
      guard.rebuild().get(30, TimeUnit.SECONDS);
      for (long id = 1; id <= KEYS; id++) {
        if (!guard.mightContain(id) && !absent.contains(id)) {
          absent.add(id);
        }
      }
      return new Run(absent, guard.inFlight());
    }
  }

  private static Future<?> untyped(EdgeUsers users, long id) {
    return (Future<?>) users.insertUntyped(new User(id, "u" + id));
  }

  @Test
  void addDeclaredObjectReturningARunningFutureKeepsTheKeyUntilItCompletes() throws Exception {
    Run run = rebuildBeforeEachInsert((users, tx, id) -> untyped(users, id));
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).as("enters still in flight once every future completed").isZero();
  }

  /**
   * Also pins the warning: once for the method over the {@value #KEYS} calls, naming it and the fix
   * (before the fix the warning said that the enter ends now).
   */
  @Test
  void asyncAnnotatedFutureWithoutEnableAsyncStaysInFlightForGood() throws Exception {
    Logger logger = Logger.getLogger("io.github.cuckooguard.spring.internal.GuardInterceptor");
    List<String> warnings = new CopyOnWriteArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel() == java.util.logging.Level.WARNING
                && record.getMessage().contains("insertAsync")) {
              warnings.add(record.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(handler);
    Run run;
    try {
      run = rebuildBeforeEachInsert((users, tx, id) -> users.insertAsync(new User(id, "u" + id)));
    } finally {
      logger.removeHandler(handler);
    }
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).as("a plain Future's enters never end").isEqualTo(KEYS);
    assertThat(warnings).as("warnings for insertAsync over %d calls", KEYS).hasSize(1);
    assertThat(warnings.get(0))
        .contains("@GuardedAdd on " + EdgeUsers.class.getName() + ".insertAsync(User)")
        .contains("The key stays in flight for good")
        .contains("Fix: declare the return type CompletableFuture or CompletionStage")
        .contains("(@EnableAsync)");
  }

  /** The caller's commit, before the executor's insert, no longer ends the enter. */
  @Test
  void callersCommitBeforeTheInsertDoesNotEndTheEnter() throws Exception {
    Run run = rebuildBeforeEachInsert((users, tx, id) -> tx.execute(status -> untyped(users, id)));
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).isZero();
  }

  /** The caller's rollback no longer aborts the enter: the executor's insert is not part of it. */
  @Test
  void callersRollbackDoesNotAbortTheEnter() throws Exception {
    Run run =
        rebuildBeforeEachInsert(
            (users, tx, id) ->
                tx.execute(
                    status -> {
                      status.setRollbackOnly();
                      return untyped(users, id);
                    }));
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).isZero();
  }

  /**
   * The caller of an {@code Object} method gets the guard's own stage: its {@code cancel} neither
   * stops the insert nor ends the enter before it.
   */
  @Test
  void callersCancelOfTheHandedStageDoesNotEndTheEnter() throws Exception {
    Run run =
        rebuildBeforeEachInsert(
            (users, tx, id) -> {
              Future<?> future = untyped(users, id);
              assertThat(future.cancel(true)).isTrue();
              return future;
            });
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).isZero();
  }

  /** A stage the guard cannot hand over is followed where it is: the caller keeps it. */
  @Test
  void stageReturnedAsAnotherTypeIsFollowedInPlace() throws Exception {
    Run run =
        rebuildBeforeEachInsert(
            (users, tx, id) -> {
              Command command = users.insertCommand(new User(id, "u" + id));
              assertThat(command).isInstanceOf(CommandFuture.class);
              return (CommandFuture) command;
            });
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).isZero();
  }

  /**
   * The caller cancels the method's own stage (it could not be handed over) while the insert waits:
   * a cancelled stage cannot be told from a finished write, so the key stays in flight for good.
   */
  @Test
  void cancelOfAStageTheCallerKeptHoldsTheKey() throws Exception {
    Run run =
        rebuildBeforeEachInsert(
            (users, tx, id) -> {
              CommandFuture future = (CommandFuture) users.insertCommand(new User(id, "u" + id));
              assertThat(future.cancel(true)).isTrue();
              return future;
            });
    assertThat(run.absent()).as("committed rows answered absent (of %d)", KEYS).isEmpty();
    assertThat(run.inFlight()).as("cancelled stages' enters never end").isEqualTo(KEYS);
  }
}
