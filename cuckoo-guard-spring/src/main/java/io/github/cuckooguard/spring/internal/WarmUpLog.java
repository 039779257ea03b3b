package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Attached to every guard built from {@code @CuckooGuarded} that warms up: logs the warm-up (its
 * first rebuild) with its progress at INFO, and its failure at WARNING.
 */
final class WarmUpLog implements RebuildListener {

  private static final System.Logger LOG = System.getLogger("io.github.cuckooguard.spring.WarmUp");

  private final String guard;
  private final AtomicBoolean warmingUp = new AtomicBoolean(true);

  WarmUpLog(String guard) {
    this.guard = guard;
  }

  @Override
  public void onStart(String reason) {
    if (warmingUp.get()) {
      LOG.log(
          Level.INFO,
          () ->
              "Cuckoo guard '" + guard + "': warm-up started; finders run unguarded until it ends");
    }
  }

  @Override
  public void onProgress(long keysScanned) {
    if (warmingUp.get()) {
      LOG.log(
          Level.INFO,
          () -> "Cuckoo guard '" + guard + "': warm-up scanned " + keysScanned + " keys");
    }
  }

  @Override
  public void onFinish(GuardStats stats) {
    if (warmingUp.compareAndSet(true, false)) {
      LOG.log(
          Level.INFO,
          () ->
              "Cuckoo guard '"
                  + guard
                  + "': warm-up finished, "
                  + stats.size()
                  + " fingerprints; "
                  + (stats.passThrough()
                      ? "the guard was marked stale meanwhile and stays in pass-through until the next rebuild"
                      : "definite misses are short-circuited from now on"));
    }
  }

  @Override
  public void onFailure(Throwable cause) {
    if (warmingUp.get()) {
      LOG.log(
          Level.WARNING,
          () ->
              "Cuckoo guard '"
                  + guard
                  + "': warm-up failed ("
                  + cause
                  + "); finders stay unguarded until a rebuild succeeds");
    }
  }
}
