package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Attached to every guard built from {@code @CuckooGuarded}: tells the {@link WriteJournal} when a
 * rebuild starts (before it installs its new filter) and ends, and logs the warm-up (the first
 * rebuild) with its progress at INFO.
 */
final class GuardRebuildListener implements RebuildListener {

  private static final System.Logger LOG = System.getLogger("io.github.cuckooguard.spring.WarmUp");

  private final String guard;
  private final WriteJournal journal;
  private final AtomicBoolean warmingUp;

  GuardRebuildListener(String guard, WriteJournal journal, boolean warmUp) {
    this.guard = guard;
    this.journal = journal;
    this.warmingUp = new AtomicBoolean(warmUp);
  }

  @Override
  public void onStart(String reason) {
    journal.rebuildStarted();
    if (warmingUp.get()) {
      LOG.log(Level.INFO, () -> "Cuckoo guard '" + guard + "': warm-up started; finders run unguarded until it ends");
    }
  }

  @Override
  public void onProgress(long keysScanned) {
    if (warmingUp.get()) {
      LOG.log(Level.INFO, () -> "Cuckoo guard '" + guard + "': warm-up scanned " + keysScanned + " keys");
    }
  }

  @Override
  public void onFinish(GuardStats stats) {
    journal.rebuildEnded();
    if (warmingUp.compareAndSet(true, false)) {
      LOG.log(Level.INFO, () -> "Cuckoo guard '" + guard + "': warm-up finished, " + stats.size()
          + " fingerprints; " + (stats.passThrough()
              ? "the guard was marked stale meanwhile and stays in pass-through until the next rebuild"
              : "definite misses are short-circuited from now on"));
    }
  }

  @Override
  public void onFailure(Throwable cause) {
    journal.rebuildEnded();
    if (warmingUp.get()) {
      LOG.log(Level.WARNING, () -> "Cuckoo guard '" + guard + "': warm-up failed (" + cause
          + "); finders stay unguarded until a rebuild succeeds");
    }
  }
}
