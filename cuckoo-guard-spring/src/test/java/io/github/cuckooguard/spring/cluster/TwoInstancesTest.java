package io.github.cuckooguard.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.H2;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two application instances (two Spring contexts, each with its own embedded Hazelcast member on
 * 127.0.0.1) on one H2 database: what A writes through its guarded repository, B finds.
 *
 * <p>Shadow truth: a writer records an id as present after A's {@code insert} returned (its
 * transaction committed), and forgets it before A's {@code deleteById} starts; any {@code null}
 * from B's guarded find for an id still recorded after the find is a false negative. The broken
 * variant ({@code -Dcuckoo.test.spring.cluster.local=true}: the same test with
 * {@code @EnableCuckooGuard(cluster = false)}) must find false negatives. Seeds fixed per thread;
 * interleavings are not, and the assertion holds for every interleaving.
 */
class TwoInstancesTest {

  private static final long SECONDS = Long.getLong("cuckoo.test.spring.cluster.seconds", 20);
  private static final boolean LOCAL = Boolean.getBoolean("cuckoo.test.spring.cluster.local");
  private static final int WRITERS = 3;
  private static final int READERS = 1;

  /**
   * At least this many pairs, however loaded the machine: the run goes on past its time until then,
   * up to a minute more.
   */
  private static final long MIN_PAIRS = 200;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void whatAWroteBFindsWithNoFalseNegative() throws Exception {
    Class<?> configuration = LOCAL ? ClusterConfigs.Local.class : ClusterConfigs.Clustered.class;
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      HazelcastInstance memberA = cluster.member();
      HazelcastInstance memberB = cluster.member();
      AnnotationConfigApplicationContext a = cluster.context(url, memberA, configuration);
      AnnotationConfigApplicationContext b = cluster.context(url, memberB, configuration);
      ClusterUserRepository onA = a.getBean(ClusterUserRepository.class);
      ClusterUserRepository onB = b.getBean(ClusterUserRepository.class);
      CallCounter bodiesOnB = b.getBean(CallCounter.class);
      awaitAnswersAbsent(onB, bodiesOnB);

      Map<Long, Boolean> present = new ConcurrentHashMap<>();
      AtomicLong nextId = new AtomicLong();
      AtomicLong pairs = new AtomicLong();
      AtomicLong reads = new AtomicLong();
      AtomicLong findsOnB = new AtomicLong();
      AtomicLong falseNegatives = new AtomicLong();
      List<Long> examples = new ArrayList<>();
      long start = System.nanoTime();
      long deadline = start + TimeUnit.SECONDS.toNanos(SECONDS);
      long hardDeadline = deadline + TimeUnit.SECONDS.toNanos(60);
      BooleanSupplier goOn =
          () -> {
            long now = System.nanoTime();
            return falseNegatives.get() < 100
                && now < hardDeadline
                && (now < deadline || pairs.get() < MIN_PAIRS);
          };
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        long seed = 1_000 + w;
        tasks.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  List<Long> mine = new ArrayList<>();
                  while (goOn.getAsBoolean()) {
                    long id = nextId.incrementAndGet();
                    assertThat(onA.insert(new User(id, "u" + id))).isTrue();
                    present.put(id, true);
                    mine.add(id);
                    findsOnB.incrementAndGet();
                    if (onB.findById(id) == null && present.containsKey(id)) {
                      falseNegative(falseNegatives, examples, id);
                    }
                    pairs.incrementAndGet();
                    if (mine.size() > 50 && random.nextInt(10) == 0) { // churn: a leave on A
                      long old = mine.remove(random.nextInt(mine.size()));
                      present.remove(old);
                      assertThat(onA.deleteById(old)).isTrue();
                    }
                  }
                  return null;
                }));
      }
      for (int r = 0; r < READERS; r++) {
        long seed = 2_000 + r;
        tasks.add(
            pool.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  while (goOn.getAsBoolean()) {
                    long high = nextId.get();
                    long id =
                        random.nextInt(4) == 0 || high == 0
                            ? -1 - random.nextInt(1_000_000) // never written: B may skip it
                            : high - random.nextLong(Math.min(high, 200));
                    boolean wasPresent = present.containsKey(id);
                    findsOnB.incrementAndGet();
                    if (onB.findById(id) == null && wasPresent && present.containsKey(id)) {
                      falseNegative(falseNegatives, examples, id);
                    }
                    reads.incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> task : tasks) {
        task.get(SECONDS + 90, TimeUnit.SECONDS);
      }
      pool.shutdownNow();
      long skipped = findsOnB.get() - bodiesOnB.finds();
      System.out.printf(
          "TwoInstancesTest (%s guards): %d write-then-read pairs, %d other reads on B, %d finds on"
              + " B skipped by the guard, %d false negatives %s%n",
          LOCAL ? "local" : "clustered",
          pairs.get(),
          reads.get(),
          skipped,
          falseNegatives.get(),
          examples);
      assertThat(falseNegatives.get()).as("false negatives, e.g. %s", examples).isZero();
      assertThat(pairs.get()).as("write-then-read pairs").isGreaterThanOrEqualTo(MIN_PAIRS);
      assertThat(skipped)
          .as("finds B answered from its filter (it was not passing through)")
          .isPositive();
    }
  }

  /**
   * A transaction on A whose commit fails after the group acknowledged its insert: the key is
   * removed again from both filters (paired), and a committed key stays.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void aRolledBackInsertLeavesBothFilters() throws Exception {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a =
          cluster.context(url, cluster.member(), ClusterConfigs.Clustered.class);
      AnnotationConfigApplicationContext b =
          cluster.context(url, cluster.member(), ClusterConfigs.Clustered.class);
      ClusterUserRepository onA = a.getBean(ClusterUserRepository.class);
      ClusterUserRepository onB = b.getBean(ClusterUserRepository.class);
      CuckooGuard<Object> guardA = a.getBean("members", CuckooGuard.class);
      CuckooGuard<Object> guardB = b.getBean("members", CuckooGuard.class);
      awaitAnswersAbsent(onB, b.getBean(CallCounter.class));

      assertThat(onA.insert(new User(7L, "kept"))).isTrue();
      long rolledBack = 8L;
      boolean[] seenOnBBeforeCommit = new boolean[1];
      TransactionTemplate tx = a.getBean(TransactionTemplate.class);
      try {
        tx.executeWithoutResult(
            status -> {
              assertThat(onA.insert(new User(rolledBack, "rolled back"))).isTrue();
              // Registered after the guard's batch: its beforeCommit runs after the enters were
              // replicated, and fails the commit.
              TransactionSynchronizationManager.registerSynchronization(
                  new TransactionSynchronization() {
                    @Override
                    public void beforeCommit(boolean readOnly) {
                      seenOnBBeforeCommit[0] = guardB.mightContain(rolledBack);
                      throw new IllegalStateException("commit refused by the test");
                    }
                  });
            });
      } catch (IllegalStateException expected) {
        assertThat(expected).hasMessage("commit refused by the test");
      }
      assertThat(seenOnBBeforeCommit[0]).as("B had the enter before A's commit").isTrue();
      assertThat(onA.rowExists(rolledBack)).isFalse();
      Await.until("the rolled-back key left A's filter", () -> !guardA.mightContain(rolledBack));
      Await.until("the rolled-back key left B's filter", () -> !guardB.mightContain(rolledBack));
      assertThat(onB.findById(7L)).as("the committed key, on B").isNotNull();
      assertThat(guardB.mightContain(7L)).isTrue();
    }
  }

  /** The broken variant, as a test: with {@code cluster = false} B misses what A writes. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void localGuardsMissTheOtherInstancesWrites() throws Exception {
    String url = H2.newUrl();
    try (ClusterMembers cluster = new ClusterMembers()) {
      AnnotationConfigApplicationContext a =
          cluster.context(url, cluster.member(), ClusterConfigs.Local.class);
      AnnotationConfigApplicationContext b =
          cluster.context(url, cluster.member(), ClusterConfigs.Local.class);
      ClusterUserRepository onA = a.getBean(ClusterUserRepository.class);
      ClusterUserRepository onB = b.getBean(ClusterUserRepository.class);
      awaitAnswersAbsent(onB, b.getBean(CallCounter.class));
      int misses = 0;
      for (long id = 1; id <= 200; id++) {
        assertThat(onA.insert(new User(id, "u" + id))).isTrue();
        if (onB.findById(id) == null) {
          misses++;
        }
      }
      assertThat(misses).as("B answered absent for rows A committed").isGreaterThan(150);
    }
  }

  /** Waits until B's guard answers "absent" from its filter: joined, leased and rebuilt. */
  private static void awaitAnswersAbsent(ClusterUserRepository onB, CallCounter bodiesOnB) {
    Await.until(
        "B's guard answers absent",
        () -> {
          int before = bodiesOnB.finds();
          onB.findById(-42L);
          return bodiesOnB.finds() == before;
        });
  }

  private static void falseNegative(AtomicLong count, List<Long> examples, long id) {
    count.incrementAndGet();
    synchronized (examples) {
      if (examples.size() < 5) {
        examples.add(id);
      }
    }
  }
}
