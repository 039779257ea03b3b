package io.github.cuckooguard.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.HeldExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A clustered guarded add that returns a {@code CompletableFuture} whose insert commits on an
 * executor while the caller's transaction on instance A is still open. The enter used to wait in
 * the caller's batch for its {@code beforeCommit}, so the row was committed while instance B lacked
 * the key, and B answered "definitely absent" for it until the caller committed (30 of 30 keys
 * absent on B, measured before the fix). The enter of an add that completes later is now replicated
 * before the method runs: 0 of 30. Two application instances (two contexts, two embedded Hazelcast
 * members on 127.0.0.1, ports from {@code -Dcuckoo.test.spring.hazelcast.port}), one H2.
 */
class AsyncClusterAddTest {

  private static final int KEYS = 30;

  /** Inserts into the table of the guard "members" on an executor (auto-commit). */
  public static class AsyncMembers {
    private final JdbcTemplate jdbc;
    private final HeldExecutor executor;

    public AsyncMembers(JdbcTemplate jdbc, HeldExecutor executor) {
      this.jdbc = jdbc;
      this.executor = executor;
    }

    @GuardedAdd(guard = "members", key = "#id")
    public CompletableFuture<Boolean> insertLater(long id) {
      return CompletableFuture.supplyAsync(
          () -> jdbc.update("insert into users(id, name) values (?, ?)", id, "m" + id) > 0,
          executor);
    }

    /** As {@link #insertLater}, declared {@code Object}: the interceptor's synchronous path. */
    @GuardedAdd(guard = "members", key = "#id")
    public Object insertUntyped(long id) {
      return insertLater(id);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterLeaseMillis = ClusterConfigs.LEASE_MILLIS)
  @Import({ClusterBeans.class, AsyncMembers.class})
  static class Config {
    @Bean
    HeldExecutor heldExecutor() {
      return new HeldExecutor();
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void theOtherInstanceHasTheKeyOnceTheExecutorCommittedTheRow() throws Exception {
    theOtherInstanceHasEveryKeyTheExecutorCommitted(AsyncMembers::insertLater);
  }

  /**
   * The same write declared {@code Object}: the interceptor sees the running future only at the
   * return, when the executor may have committed the row already, so an add whose declared type can
   * hold a future replicates its enter before the method too. Before (the enter in the caller's
   * batch): 30 of 30 absent on B; after: 0 of 30.
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void theOtherInstanceHasTheKeyOfAnUntypedAddOnceTheExecutorCommittedTheRow() throws Exception {
    theOtherInstanceHasEveryKeyTheExecutorCommitted(
        (members, id) -> (CompletableFuture<?>) members.insertUntyped(id));
  }

  @SuppressWarnings("unchecked")
  private void theOtherInstanceHasEveryKeyTheExecutorCommitted(
      BiFunction<AsyncMembers, Long, CompletableFuture<?>> insert) throws Exception {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a = cluster.context(url, cluster.member(), Config.class);
      AnnotationConfigApplicationContext b = cluster.context(url, cluster.member(), Config.class);
      AsyncMembers onA = a.getBean(AsyncMembers.class);
      CuckooGuard<Object> guardB = b.getBean("members", CuckooGuard.class);
      CuckooGuard<Object> guardA = a.getBean("members", CuckooGuard.class);
      TransactionTemplate tx = a.getBean(TransactionTemplate.class);
      Await.until("B's guard answers absent", () -> !guardB.mightContain(-42L));

      List<Long> ids = new ArrayList<>();
      for (long id = 9_000; ids.size() < KEYS; id++) {
        if (!guardB.mightContain(id)) { // a false positive of B's filter would prove nothing
          ids.add(id);
        }
      }
      List<Long> absentOnB = new ArrayList<>();
      for (long id : ids) {
        tx.executeWithoutResult(
            status -> {
              assertThat(insert.apply(onA, id).join()).isEqualTo(true);
              assertThat(H2.committedRowExists(url, id)).isTrue(); // the caller is still open
              if (!guardB.mightContain(id)) {
                absentOnB.add(id);
              }
            });
      }
      assertThat(absentOnB).as("committed rows B reported definitely absent").isEmpty();
      for (long id : ids) {
        assertThat(guardB.mightContain(id)).as("B after the caller's commit: %s", id).isTrue();
      }
      Await.until("A's enters ended", () -> guardA.inFlight() == 0);
    }
  }
}
