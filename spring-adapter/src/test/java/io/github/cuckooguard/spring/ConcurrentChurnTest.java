package io.github.cuckooguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.jdbc.JdbcUserRepository;
import io.github.cuckooguard.spring.jdbc.User;
import io.github.cuckooguard.spring.support.Await;
import io.github.cuckooguard.spring.support.Contexts;
import io.github.cuckooguard.spring.support.H2;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several threads insert, delete and find a small set of keys through the guarded repository,
 * committing and rolling back, while another thread rebuilds the guard over and over. A shadow
 * truth records, per key, whether a committed row exists and whether a write is in progress; a
 * find of a key that had a committed row for the whole call must reach the database and find it.
 *
 * <p>The shadow state of a key is updated at the very start of the transaction's completion,
 * before the guard's own callbacks run, so the next writer of that key may start while the
 * previous one has not yet delivered its {@code keyLeft} or its undo: the cross-transaction
 * orders a rebuild has to survive. Seeds are fixed; thread interleavings are not, and the
 * assertion (no false negative) holds for every interleaving.
 */
class ConcurrentChurnTest {

  private static final int KEYS = 48;
  private static final int WORKERS = 4;
  private static final int OPS_PER_WORKER = 1_500;

  /** The shadow truth of one key. */
  private record KeyState(boolean present, boolean writing, int version) {
    KeyState startWrite() {
      return new KeyState(present, true, version + 1);
    }

    KeyState endWrite(boolean nowPresent) {
      return new KeyState(nowPresent, false, version + 1);
    }
  }

  private final AtomicReferenceArray<KeyState> truth = new AtomicReferenceArray<>(KEYS);
  private final AtomicInteger checkedFinds = new AtomicInteger();
  private final AtomicInteger falseNegatives = new AtomicInteger();
  private final AtomicInteger phantomRows = new AtomicInteger();
  private final AtomicInteger commits = new AtomicInteger();
  private final AtomicInteger rollbacks = new AtomicInteger();

  private JdbcUserRepository users;
  private TransactionTemplate tx;

  @Test
  @SuppressWarnings("unchecked")
  void committedKeysAreNeverShortCircuited() throws Exception {
    for (int k = 0; k < KEYS; k++) {
      truth.set(k, new KeyState(false, false, 0));
    }
    try (AnnotationConfigApplicationContext context = Contexts.start(H2.newUrl(), JdbcConfig.class)) {
      users = context.getBean(JdbcUserRepository.class);
      tx = context.getBean(TransactionTemplate.class);
      CuckooGuard<Object> guard = context.getBean("users", CuckooGuard.class);
      Await.until("warm-up", () -> !guard.isPassThrough());

      ExecutorService pool = Executors.newFixedThreadPool(WORKERS + 1);
      AtomicBoolean done = new AtomicBoolean();
      AtomicInteger rebuilds = new AtomicInteger();
      Future<?> rebuilder = pool.submit(() -> {
        while (!done.get()) {
          guard.rebuild().get(30, TimeUnit.SECONDS);
          rebuilds.incrementAndGet();
          Thread.sleep(1);
        }
        return null;
      });
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        SplittableRandom random = new SplittableRandom(1_000 + w);
        workers.add(pool.submit(() -> work(random)));
      }
      for (Future<?> worker : workers) {
        worker.get(120, TimeUnit.SECONDS);
      }
      done.set(true);
      rebuilder.get(60, TimeUnit.SECONDS);
      pool.shutdown();

      assertThat(falseNegatives.get()).as("finds of committed keys answered \"absent\"").isZero();
      assertThat(phantomRows.get()).as("finds of absent keys that found a row (shadow truth broken)").isZero();
      assertThat(checkedFinds.get()).as("finds checked against the truth").isGreaterThan(500);
      assertThat(commits.get()).isGreaterThan(500);
      assertThat(rollbacks.get()).isGreaterThan(100);
      assertThat(rebuilds.get()).as("rebuilds during the churn").isGreaterThan(10);
      // Quiescent now: a rebuild (a follow-up of a marked-stale one, or this) turns pass-through off.
      guard.rebuild().get(30, TimeUnit.SECONDS);
      Await.until("pass-through off after the churn", () -> !guard.isPassThrough());
      for (int k = 0; k < KEYS; k++) {
        boolean present = truth.get(k).present();
        assertThat(users.rowExists(k)).as("row %s matches the truth", k).isEqualTo(present);
        if (present) {
          assertThat(guard.mightContain((long) k)).as("guard holds key %s", k).isTrue();
        }
      }
    }
  }

  private void work(SplittableRandom random) {
    for (int op = 0; op < OPS_PER_WORKER; op++) {
      int key = random.nextInt(KEYS);
      if (random.nextInt(10) < 4) {
        find(key);
      } else {
        write(key, random.nextInt(3), random.nextInt(4) != 0);
      }
    }
  }

  private void find(int key) {
    KeyState before = truth.get(key);
    User found = users.findById(key);
    KeyState after = truth.get(key);
    if (before == after && !before.writing()) {
      checkedFinds.incrementAndGet();
      if (before.present() && found == null) {
        falseNegatives.incrementAndGet();
      } else if (!before.present() && found != null) {
        phantomRows.incrementAndGet();
      }
    }
  }

  private void write(int key, int variant, boolean commit) {
    KeyState state = truth.get(key);
    if (state.writing() || !truth.compareAndSet(key, state, state.startWrite())) {
      return;
    }
    KeyState writing = truth.get(key);
    boolean[] nowPresent = {state.present()};
    tx.executeWithoutResult(status -> {
      TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
        @Override
        public int getOrder() {
          return Ordered.HIGHEST_PRECEDENCE; // before the guard's keyLeft and undo callbacks
        }

        @Override
        public void afterCompletion(int completion) {
          boolean committed = completion == STATUS_COMMITTED;
          (committed ? commits : rollbacks).incrementAndGet();
          truth.set(key, writing.endWrite(committed ? nowPresent[0] : state.present()));
        }
      });
      nowPresent[0] = change(key, state.present(), variant);
      if (!commit) {
        status.setRollbackOnly();
      }
    });
  }

  /** One of three changes of a key; returns whether a row exists afterwards in this transaction. */
  private boolean change(int key, boolean present, int variant) {
    User user = new User(key, "user " + key);
    if (present) {
      switch (variant) {
        case 0 -> assertThat(users.deleteById(key)).isTrue();
        case 1 -> {
          assertThat(users.deleteById(key)).isTrue();
          assertThat(users.insert(user)).isTrue();
          return true;
        }
        default -> {
          assertThat(users.insert(user)).as("insert of an existing key").isFalse();
          return true;
        }
      }
      return false;
    }
    switch (variant) {
      case 0 -> {
        assertThat(users.insert(user)).isTrue();
        return true;
      }
      case 1 -> {
        assertThat(users.insert(user)).isTrue();
        assertThat(users.deleteById(key)).isTrue();
      }
      default -> assertThat(users.deleteById(key)).as("delete of a missing key").isFalse();
    }
    return false;
  }
}
