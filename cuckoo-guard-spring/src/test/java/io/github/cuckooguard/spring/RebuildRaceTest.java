package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.KeyScanHook;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.Latch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Rebuilds that start while guarded writes are in flight: the store and the guard's events are a
 * transaction apart, and the rebuilt filter must still hold every key that exists. Each test pins
 * one interleaving with latches (no timing). The adapter keeps no registry of its own: its enters
 * and leaves are the core's handles, and the rebuild takes the writes in flight from them without a
 * detour through pass-through.
 */
class RebuildRaceTest {

  private AnnotationConfigApplicationContext context;
  private JdbcUserRepository users;
  private CuckooGuard<Object> guard;
  private TransactionTemplate tx;
  private final KeyScanHook scanHook = new KeyScanHook();

  @BeforeEach
  @SuppressWarnings("unchecked")
  void start() {
    context =
        Contexts.start(
            H2.newUrl(), c -> c.registerBean(KeyScanHook.class, () -> scanHook), JdbcConfig.class);
    users = context.getBean(JdbcUserRepository.class);
    guard = context.getBean("users", CuckooGuard.class);
    tx = context.getBean(TransactionTemplate.class);
    Await.until("warm-up", () -> !guard.isPassThrough());
  }

  @AfterEach
  void stop() {
    context.close();
  }

  /** Runs {@code body} in a transaction whose completion callbacks wait for {@code release}. */
  private Thread inTransactionHeldAfterCommit(Runnable body, Latch committed, Latch release) {
    Thread thread =
        new Thread(
            () ->
                tx.executeWithoutResult(
                    status -> {
                      TransactionSynchronizationManager.registerSynchronization(
                          new TransactionSynchronization() {
                            @Override
                            public int getOrder() {
                              return Ordered.HIGHEST_PRECEDENCE; // before the guard's callback
                            }

                            @Override
                            public void afterCompletion(int status) {
                              committed.open();
                              release.await();
                            }
                          });
                      body.run();
                    }));
    thread.start();
    return thread;
  }

  private CompletableFuture<Void> rebuildHeldAtScanStart(Latch scanStarted, Latch releaseScan) {
    scanHook.beforeScan(
        () -> {
          scanStarted.open();
          releaseScan.await();
        });
    return guard.rebuild();
  }

  @Test
  void leaveDeliveredAfterTheRebuildStartedDoesNotHideTheKeyInsertedAgain() throws Exception {
    long key = 42;
    users.insert(new User(key, "first"));
    Latch deleteCommitted = new Latch();
    Latch releaseDelete = new Latch();
    Thread deleter =
        inTransactionHeldAfterCommit(() -> users.deleteById(key), deleteCommitted, releaseDelete);
    deleteCommitted.await(); // the row is gone; the guard's gone() has not run yet
    users.insert(new User(key, "second")); // the new row's enter before the old row's gone()

    Latch scanStarted = new Latch();
    Latch releaseScan = new Latch();
    CompletableFuture<Void> rebuilt = rebuildHeldAtScanStart(scanStarted, releaseScan);
    scanStarted.await();
    releaseDelete.open(); // gone() of the first row arrives while the rebuild runs
    deleter.join();
    releaseScan.open(); // the scan then sees the second row
    rebuilt.get(30, TimeUnit.SECONDS);

    // The old row's gone() came after the new row's enter, and during the rebuild, which held a
    // copy for that leave: its filter still has one for the new row, with no detour through
    // pass-through.
    assertThat(guard.isPassThrough()).as("pass-through after the held rebuild").isFalse();
    assertThat(guard.mightContain(key)).as("no false negative for the row inserted again").isTrue();
    assertThat(guard.inFlight()).isZero();
    assertThat(users.findById(key)).isEqualTo(new User(key, "second"));
  }

  @Test
  void addCommittedAfterTheScanPassedItIsKept() throws Exception {
    long key = 43;
    Latch inserted = new Latch();
    Latch commit = new Latch();
    Thread inserter =
        new Thread(
            () ->
                tx.executeWithoutResult(
                    status -> {
                      users.insert(new User(key, "late"));
                      inserted.open();
                      commit.await();
                    }));
    inserter.start();
    inserted.await(); // the enter began, the row is not visible to the scan

    guard.rebuild().get(30, TimeUnit.SECONDS);
    commit.open();
    inserter.join();

    assertThat(users.rowExists(key)).isTrue();
    assertThat(guard.mightContain(key))
        .as("no false negative for the row committed after the scan")
        .isTrue();
  }

  @Test
  void deleteCommittedDuringTheScanLeavesAfterTheSwapWithoutAnUnpairedRemove() throws Exception {
    long deleted = 44;
    long kept = 45;
    users.insert(new User(deleted, "deleted during the scan"));
    users.insert(new User(kept, "kept"));

    Latch scanStarted = new Latch();
    Latch releaseScan = new Latch();
    CompletableFuture<Void> rebuilt = rebuildHeldAtScanStart(scanStarted, releaseScan);
    scanStarted.await();
    Latch deleteCommitted = new Latch();
    Latch releaseDelete = new Latch();
    Thread deleter =
        inTransactionHeldAfterCommit(
            () -> users.deleteById(deleted), deleteCommitted, releaseDelete);
    deleteCommitted.await(); // gone before the scan reads the table; gone() held back
    releaseScan.open();
    rebuilt.get(30, TimeUnit.SECONDS);
    long afterSwap = guard.stats().size();
    releaseDelete.open(); // gone() lands on the new filter
    deleter.join();

    assertThat(guard.stats().size())
        .as("the late gone() removed a copy that was paired with it")
        .isEqualTo(afterSwap - 1);
    assertThat(guard.mightContain(kept)).isTrue();
    assertThat(users.findById(kept)).isNotNull();
  }

  @Test
  void insertOfAnExistingKeyDuringARebuildDoesNotDropIt() throws Exception {
    long key = 46;
    users.insert(new User(key, "exists"));

    Latch scanStarted = new Latch();
    Latch releaseScan = new Latch();
    CompletableFuture<Void> rebuilt = rebuildHeldAtScanStart(scanStarted, releaseScan);
    scanStarted.await(); // the new filter is installed; the scan has not read the table yet
    assertThat(users.insert(new User(key, "duplicate"))).isFalse(); // beginEnter, then abort()
    releaseScan.open();
    rebuilt.get(30, TimeUnit.SECONDS);

    assertThat(guard.isPassThrough()).as("pass-through after the rebuild").isFalse();
    assertThat(guard.mightContain(key)).as("no false negative for the existing row").isTrue();
    assertThat(users.findById(key)).isEqualTo(new User(key, "exists"));
  }
}
