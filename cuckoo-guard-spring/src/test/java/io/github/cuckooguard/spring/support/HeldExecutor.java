package io.github.cuckooguard.spring.support;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real executor (one worker thread) whose tasks wait for the test: a task submitted after {@link
 * #hold()} starts only at the matching {@link #release()}. Closed with its context.
 */
public final class HeldExecutor implements Executor, AutoCloseable {

  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "held-executor");
            t.setDaemon(true);
            return t;
          });
  private volatile Latch gate = open();

  private static Latch open() {
    Latch latch = new Latch();
    latch.open();
    return latch;
  }

  /** Tasks submitted from now on wait for {@link #release()}. */
  public void hold() {
    gate = new Latch();
  }

  /** Lets the held tasks run (in submission order); later tasks run at once. */
  public void release() {
    Latch held = gate;
    gate = open();
    held.open();
  }

  @Override
  public void execute(Runnable task) {
    Latch wait = gate;
    worker.execute(
        () -> {
          wait.await();
          task.run();
        });
  }

  @Override
  public void close() throws InterruptedException {
    release();
    worker.shutdown();
    worker.awaitTermination(30, TimeUnit.SECONDS);
  }
}
