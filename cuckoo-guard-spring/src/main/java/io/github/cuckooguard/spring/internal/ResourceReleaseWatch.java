package io.github.cuckooguard.spring.internal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.transaction.support.ResourceHolderSupport;

/**
 * Runs actions once the transaction resources that Spring's transaction managers bound to a thread
 * have been released. The managers mark each holder of their connection, session or entity manager
 * as synchronized with the transaction in {@code doBegin} and clear it in their cleanup, after the
 * commit or rollback (and, for a JDBC connection, as the last step, after the auto-commit reset
 * that commits writes made in an {@code afterCommit}); nothing calls back then, so one daemon
 * thread looks every {@value #POLL_MILLIS} ms while anything is watched and ends when nothing is.
 *
 * <p>An action runs at the second look that finds every holder cleared, so at least one sleep after
 * the transaction's thread cleared it: the flag is a plain field of the holder, written after the
 * commit by that thread. Late only keeps an enter in flight longer (a fingerprint a rebuild keeps,
 * never one it loses). A holder reused by the thread's next transaction before a look saw it
 * cleared (a pre-bound entity manager under open-in-view) is waited for until a look does; a watch
 * waiting longer than {@value #WARN_SECONDS} s is logged once.
 */
final class ResourceReleaseWatch {

  static final long POLL_MILLIS = 5;
  static final long WARN_SECONDS = 60;

  private static final System.Logger LOG = System.getLogger(ResourceReleaseWatch.class.getName());
  private static final List<Watched> WATCHED = new ArrayList<>();
  private static boolean running;
  private static boolean warned;

  private ResourceReleaseWatch() {}

  /** Runs {@code released} on the watch thread once every one of {@code holders} is released. */
  static void watch(List<ResourceHolderSupport> holders, Runnable released) {
    Watched w = new Watched(List.copyOf(holders), released, System.nanoTime());
    synchronized (WATCHED) {
      WATCHED.add(w);
      if (!running) {
        running = true;
        Thread t = new Thread(ResourceReleaseWatch::run, "cuckoo-guard-transaction-end-watch");
        t.setDaemon(true);
        t.start();
      }
    }
  }

  private static void run() {
    while (true) {
      List<Watched> due = new ArrayList<>();
      synchronized (WATCHED) {
        if (WATCHED.isEmpty()) {
          running = false;
          return;
        }
        long now = System.nanoTime();
        for (Iterator<Watched> it = WATCHED.iterator(); it.hasNext(); ) {
          Watched w = it.next();
          if (w.look()) {
            it.remove();
            due.add(w);
          } else if (!warned && now - w.since > TimeUnit.SECONDS.toNanos(WARN_SECONDS)) {
            warned = true;
            LOG.log(
                Level.WARNING,
                "A guarded add made in a transaction whose end cannot be followed (an afterCommit"
                    + " callback, a manager without transaction synchronization) has waited more"
                    + " than "
                    + WARN_SECONDS
                    + " s for its transaction's resources to be released; its key stays in flight"
                    + " (kept by every rebuild) meanwhile. Logged once.");
          }
        }
      }
      for (Watched w : due) {
        try {
          w.released.run();
        } catch (RuntimeException ex) {
          LOG.log(Level.ERROR, "Ending a guarded write after its transaction failed", ex);
        }
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException ex) {
        // a daemon nobody interrupts; looking again at once is harmless
      }
    }
  }

  private static final class Watched {
    final List<ResourceHolderSupport> holders;
    final Runnable released;
    final long since;
    private boolean seenReleased;

    Watched(List<ResourceHolderSupport> holders, Runnable released, long since) {
      this.holders = holders;
      this.released = released;
      this.since = since;
    }

    /** True at the second consecutive look that finds every holder released. */
    boolean look() {
      for (ResourceHolderSupport h : holders) {
        if (h.isSynchronizedWithTransaction()) {
          seenReleased = false;
          return false;
        }
      }
      if (seenReleased) {
        return true;
      }
      seenReleased = true;
      return false;
    }
  }
}
