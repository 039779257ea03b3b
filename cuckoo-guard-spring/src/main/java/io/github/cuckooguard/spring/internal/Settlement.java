package io.github.cuckooguard.spring.internal;

import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * The end of a guarded write that completes later: two sides, the caller's and the stage's, each
 * settled once (later calls for a side are ignored), possibly on different threads; when both have,
 * {@code end} runs once, with whether either side said "not done" (for an add: nothing created; for
 * a remove: not certainly removed) and the first reason to mark the guard stale.
 */
final class Settlement {

  private static final System.Logger LOG = System.getLogger(Settlement.class.getName());

  /** The two sides of a write that completes later. */
  enum Side {
    CALLER,
    STAGE
  }

  /** What runs when both sides have settled. */
  interface End {
    void run(boolean notDone, @Nullable String staleReason);
  }

  private final End end;
  private boolean caller;
  private boolean stage;
  private boolean notDone;
  private @Nullable String stale;

  Settlement(End end) {
    this.end = end;
  }

  /**
   * Settles {@code side}, once: {@code sideNotDone} if that side says the write was not done, and a
   * reason to mark the guard stale, or null. Runs the end if the other side has settled too.
   */
  void settle(Side side, boolean sideNotDone, @Nullable String staleReason) {
    boolean notDoneNow;
    @Nullable String staleNow;
    synchronized (this) {
      boolean already = side == Side.CALLER ? caller : stage;
      if (already) {
        return;
      }
      if (side == Side.CALLER) {
        caller = true;
      } else {
        stage = true;
      }
      notDone |= sideNotDone;
      if (stale == null) {
        stale = staleReason;
      }
      if (!caller || !stage) {
        return;
      }
      notDoneNow = notDone;
      staleNow = stale;
    }
    try {
      end.run(notDoneNow, staleNow);
    } catch (RuntimeException ex) {
      LOG.log(Level.ERROR, "Ending a guarded write that completed later failed", ex);
    }
  }
}
