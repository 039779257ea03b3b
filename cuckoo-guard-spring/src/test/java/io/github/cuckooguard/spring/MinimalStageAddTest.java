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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Found by a reviewer (10 of 10 absent in each test on main at 24cd472, 0 after): a guarded add
 * declared {@code Object} that returns, at run time, {@code
 * CompletableFuture.minimalCompletionStage()}, a running stage whose class ({@code
 * CompletableFuture$MinimalStage}) is a {@code Future} whose {@code isDone()} throws {@code
 * UnsupportedOperationException}. {@code GuardInterceptor#stillRunning} calls {@code
 * future.isDone()} after the method returned, so the add throws while the write it started goes on,
 * and neither {@code addStillRunning} nor the catch of the call ever sees it: the caller's rollback
 * (the exception rolls back its transaction) aborts the enter, and the write commits afterwards.
 * Deterministic: a {@link HeldExecutor} holds each insert until the caller's transaction has ended.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MinimalStageAddTest {

  private static final int KEYS = 10;

  /** Adds in guard "users" of {@link JdbcConfig} returning a minimal stage of an insert. */
  public static class MinimalUsers {
    private final JdbcTemplate jdbc;
    private final HeldExecutor executor;

    public MinimalUsers(JdbcTemplate jdbc, HeldExecutor executor) {
      this.jdbc = jdbc;
      this.executor = executor;
    }

    @GuardedAdd(guard = "users", key = "#user.id")
    public Object insertMinimal(User user) {
      return CompletableFuture.supplyAsync(
              () ->
                  jdbc.update("insert into users(id, name) values (?, ?)", user.id(), user.name())
                      > 0,
              executor)
          .minimalCompletionStage();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @Import({JdbcConfig.class, MinimalUsers.class})
  static class MinimalConfig {
    @Bean
    HeldExecutor heldExecutor() {
      return new HeldExecutor();
    }
  }

  /**
   * 10 adds, each called in a {@code TransactionTemplate}; the add throws {@code
   * UnsupportedOperationException} (from {@code isDone()}) after starting its insert, the template
   * rolls back, then the insert runs and commits on the executor. Seen on main 24cd472: 10 of 10
   * committed rows answered absent by the guard (and by the guarded path: no rebuild involved).
   */
  @Test
  void minimalStageReturnedByAnObjectAddKeepsItsKeyAfterTheCallersRollback() throws Exception {
    String url = H2.newUrl();
    List<Long> absent = new ArrayList<>();
    List<String> thrown = new ArrayList<>();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, MinimalConfig.class)) {
      MinimalUsers users = context.getBean(MinimalUsers.class);
      HeldExecutor executor = context.getBean(HeldExecutor.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      @SuppressWarnings("unchecked")
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      for (long id = 1; id <= KEYS; id++) {
        long row = id;
        executor.hold();
        try {
          tx.execute(status -> users.insertMinimal(new User(row, "u" + row)));
        } catch (RuntimeException ex) {
          thrown.add(ex.getClass().getSimpleName());
        }
        executor.release();
        Await.until("row " + row + " committed", () -> H2.committedRowExists(url, row));
        if (!guard.mightContain(row)) {
          absent.add(row);
        }
      }
      executor.release();
    }
    assertThat(absent)
        .as(
            "committed rows answered absent (%s of %s; the adds threw %s)",
            absent.size(), KEYS, thrown)
        .isEmpty();
  }

  /**
   * The same add, its exception caught inside the caller's transaction, which commits: the commit
   * ends the enter (visible) while the insert still waits on the executor; a rebuild scans before
   * the insert, then the insert commits. Seen on main 24cd472: 10 of 10 committed rows answered
   * absent.
   */
  @Test
  void minimalStageReturnedByAnObjectAddKeepsItsKeyPastTheCallersCommit() throws Exception {
    String url = H2.newUrl();
    List<Long> absent = new ArrayList<>();
    try (AnnotationConfigApplicationContext context = Contexts.start(url, MinimalConfig.class)) {
      MinimalUsers users = context.getBean(MinimalUsers.class);
      HeldExecutor executor = context.getBean(HeldExecutor.class);
      TransactionTemplate tx = context.getBean(TransactionTemplate.class);
      @SuppressWarnings("unchecked")
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      Await.until("warm-up of guard 'users'", () -> !guard.isPassThrough());
      for (long id = 1; id <= KEYS; id++) {
        long row = id;
        executor.hold();
        tx.executeWithoutResult(
            status -> {
              try {
                users.insertMinimal(new User(row, "u" + row));
              } catch (UnsupportedOperationException ex) {
                // the caller carries on; its transaction commits
              }
            });
        guard.rebuild().get(30, TimeUnit.SECONDS);
        assertThat(H2.committedRowExists(url, row)).as("scanned before row %s", row).isFalse();
        executor.release();
        Await.until("row " + row + " committed", () -> H2.committedRowExists(url, row));
        if (!guard.mightContain(row)) {
          absent.add(row);
        }
      }
      executor.release();
    }
    assertThat(absent)
        .as("committed rows answered absent (%s of %s)", absent.size(), KEYS)
        .isEmpty();
  }
}
