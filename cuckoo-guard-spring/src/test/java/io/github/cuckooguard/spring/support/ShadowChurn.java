package io.github.cuckooguard.spring.support;

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
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The churn the concurrent guard tests share: worker threads find and change a small set of keys
 * {@code 0 .. keys-1} in transactions that commit or roll back, while one more thread rebuilds the
 * guard over and over. A shadow truth records, per key, whether a committed row exists and whether
 * a write is in progress; a find of a key whose truth did not change during the call and that was
 * not being written is checked against it (a present key not found is a false negative, an absent
 * key found is a phantom row). The counters are the test's to assert on.
 *
 * <p>The truth of a key changes in the writer's {@code afterCompletion}, run at the {@code
 * synchronizationOrder} the test chooses relative to the guard's own callbacks. Each worker draws
 * from its own {@link SplittableRandom} seeded {@code seedBase + worker}; per operation: a key,
 * then a find (40%) or a change (variant 0..2, committed 3 times in 4).
 */
public final class ShadowChurn {

  /** Finds a key through the guarded path; may draw more from {@code random}. */
  @FunctionalInterface
  public interface Find {
    boolean rowFound(int key, SplittableRandom random);
  }

  /**
   * Makes change {@code variant} of a key inside the open transaction; returns whether a row exists
   * afterwards.
   */
  @FunctionalInterface
  public interface Change {
    boolean apply(int key, boolean present, int variant);
  }

  /** One rebuild of the guard, waited for. */
  @FunctionalInterface
  public interface Rebuild {
    void run() throws Exception;
  }

  /** The shadow truth of one key. */
  private record KeyState(boolean present, boolean writing, int version) {
    KeyState startWrite() {
      return new KeyState(present, true, version + 1);
    }

    KeyState endWrite(boolean nowPresent) {
      return new KeyState(nowPresent, false, version + 1);
    }
  }

  private final int keys;
  private final TransactionTemplate tx;
  private final int synchronizationOrder;
  private final Find find;
  private final Change change;
  private final AtomicReferenceArray<KeyState> truth;
  private final AtomicInteger checkedFinds = new AtomicInteger();
  private final AtomicInteger falseNegatives = new AtomicInteger();
  private final AtomicInteger phantomRows = new AtomicInteger();
  private final AtomicInteger commits = new AtomicInteger();
  private final AtomicInteger rollbacks = new AtomicInteger();
  private final AtomicInteger rebuilds = new AtomicInteger();

  /** Starts with every key absent. */
  public ShadowChurn(
      int keys, TransactionTemplate tx, int synchronizationOrder, Find find, Change change) {
    this.keys = keys;
    this.tx = tx;
    this.synchronizationOrder = synchronizationOrder;
    this.find = find;
    this.change = change;
    this.truth = new AtomicReferenceArray<>(keys);
    for (int k = 0; k < keys; k++) {
      truth.set(k, new KeyState(false, false, 0));
    }
  }

  /**
   * Runs {@code workers} workers of {@code opsPerWorker} operations each while {@code rebuild} runs
   * in a loop, pausing {@code pauseMillis} between rebuilds; returns when all have stopped.
   */
  public void run(int workers, int opsPerWorker, long seedBase, Rebuild rebuild, long pauseMillis)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(workers + 1);
    AtomicBoolean done = new AtomicBoolean();
    Future<?> rebuilder =
        pool.submit(
            () -> {
              while (!done.get()) {
                rebuild.run();
                rebuilds.incrementAndGet();
                Thread.sleep(pauseMillis);
              }
              return null;
            });
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      SplittableRandom random = new SplittableRandom(seedBase + w);
      running.add(pool.submit(() -> work(random, opsPerWorker)));
    }
    for (Future<?> worker : running) {
      worker.get(120, TimeUnit.SECONDS);
    }
    done.set(true);
    rebuilder.get(60, TimeUnit.SECONDS);
    pool.shutdown();
  }

  /** Whether the key has a committed row, by the shadow truth. */
  public boolean present(int key) {
    return truth.get(key).present();
  }

  public int checkedFinds() {
    return checkedFinds.get();
  }

  public int falseNegatives() {
    return falseNegatives.get();
  }

  public int phantomRows() {
    return phantomRows.get();
  }

  public int commits() {
    return commits.get();
  }

  public int rollbacks() {
    return rollbacks.get();
  }

  public int rebuilds() {
    return rebuilds.get();
  }

  private void work(SplittableRandom random, int ops) {
    for (int op = 0; op < ops; op++) {
      int key = random.nextInt(keys);
      if (random.nextInt(10) < 4) {
        checkFind(key, random);
      } else {
        write(key, random.nextInt(3), random.nextInt(4) != 0);
      }
    }
  }

  private void checkFind(int key, SplittableRandom random) {
    KeyState before = truth.get(key);
    boolean found = find.rowFound(key, random);
    KeyState after = truth.get(key);
    if (before == after && !before.writing()) {
      checkedFinds.incrementAndGet();
      if (before.present() && !found) {
        falseNegatives.incrementAndGet();
      } else if (!before.present() && found) {
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
    tx.executeWithoutResult(
        status -> {
          TransactionSynchronizationManager.registerSynchronization(
              new TransactionSynchronization() {
                @Override
                public int getOrder() {
                  return synchronizationOrder;
                }

                @Override
                public void afterCompletion(int completion) {
                  boolean committed = completion == STATUS_COMMITTED;
                  (committed ? commits : rollbacks).incrementAndGet();
                  truth.set(key, writing.endWrite(committed ? nowPresent[0] : state.present()));
                }
              });
          nowPresent[0] = change.apply(key, state.present(), variant);
          if (!commit) {
            status.setRollbackOnly();
          }
        });
  }
}
