package io.github.cuckooguard.hibernate.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the warm-up and rebuild scans of one session factory on up to two daemon threads. Tasks
 * submitted before {@link #open()} wait: the session factory is not ready for queries until its
 * {@code SessionFactoryObserver.sessionFactoryCreated} callback. After {@link #close()} tasks are
 * dropped, which leaves the guards in pass-through mode (never wrong).
 *
 * <p>Thread safety: thread-safe.
 */
final class WarmUpExecutor implements Executor {

  private static final int THREADS = 2;

  private final ThreadPoolExecutor pool;
  private List<Runnable> parked = new ArrayList<>();
  private boolean open;

  WarmUpExecutor(String factoryName) {
    AtomicInteger count = new AtomicInteger();
    ThreadFactory threads =
        task -> {
          Thread thread =
              new Thread(task, "cuckoo-guard-" + factoryName + "-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    pool =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            threads,
            new ThreadPoolExecutor.DiscardPolicy());
    pool.allowCoreThreadTimeOut(true);
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      if (!open) {
        parked.add(task);
        return;
      }
    }
    pool.execute(task);
  }

  /** Starts the tasks submitted so far and runs later ones at once. */
  void open() {
    List<Runnable> ready;
    synchronized (this) {
      if (open) {
        return;
      }
      open = true;
      ready = parked;
      parked = List.of();
    }
    ready.forEach(pool::execute);
  }

  /** Interrupts running scans and drops waiting ones. */
  void close() {
    synchronized (this) {
      open = true;
      parked = List.of();
    }
    pool.shutdownNow();
  }
}
