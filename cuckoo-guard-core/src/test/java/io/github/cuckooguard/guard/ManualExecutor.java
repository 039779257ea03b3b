package io.github.cuckooguard.guard;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;

/** An executor that queues tasks until the test runs them, on the test's thread. */
final class ManualExecutor implements Executor {
  private final Deque<Runnable> tasks = new ArrayDeque<>();

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(task);
  }

  synchronized int pending() {
    return tasks.size();
  }

  /**
   * Runs queued tasks, including ones queued meanwhile, until none is left; returns how many ran.
   */
  int runAll() {
    int ran = 0;
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
      }
      if (next == null) {
        return ran;
      }
      next.run();
      ran++;
    }
  }
}
