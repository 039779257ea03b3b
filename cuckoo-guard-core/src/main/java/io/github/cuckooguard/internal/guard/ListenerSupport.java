package io.github.cuckooguard.internal.guard;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tells the registered {@link RebuildListener}s and the log about a guard's rebuilds. A throwing
 * listener is logged and skipped; it never reaches the caller.
 */
public final class ListenerSupport {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.CuckooGuard");

  private final String guard;
  private final List<RebuildListener> listeners;

  public ListenerSupport(String guard, List<RebuildListener> listeners) {
    this.guard = guard;
    this.listeners = List.copyOf(listeners);
  }

  public void started(String reason) {
    LOGGER.log(Level.INFO, () -> "Cuckoo guard '" + guard + "': rebuild started (" + reason + ")");
    each(l -> l.onStart(reason), "onStart");
  }

  public void progress(long keysScanned) {
    LOGGER.log(
        Level.DEBUG,
        () -> "Cuckoo guard '" + guard + "': rebuild scanned " + keysScanned + " keys");
    each(l -> l.onProgress(keysScanned), "onProgress");
  }

  public void finished(GuardStats stats, long keysScanned, Duration took) {
    LOGGER.log(
        Level.INFO,
        () ->
            "Cuckoo guard '"
                + guard
                + "': rebuild finished in "
                + took.toMillis()
                + " ms, "
                + keysScanned
                + " keys scanned, "
                + stats.size()
                + " fingerprints, load "
                + stats.loadFactor()
                + (stats.passThrough()
                    ? ", pass-through stays on (marked stale during the rebuild)"
                    : ""));
    each(l -> l.onFinish(stats), "onFinish");
  }

  public void failed(Throwable cause) {
    LOGGER.log(
        Level.WARNING,
        "Cuckoo guard '"
            + guard
            + "': rebuild failed; pass-through stays on until a"
            + " rebuild succeeds",
        cause);
    each(l -> l.onFailure(cause), "onFailure");
  }

  private void each(Consumer<RebuildListener> call, String method) {
    for (RebuildListener l : listeners) {
      try {
        call.accept(l);
      } catch (Throwable t) {
        LOGGER.log(
            Level.WARNING,
            "Cuckoo guard '"
                + guard
                + "': RebuildListener."
                + method
                + " of "
                + l
                + " threw; ignored",
            t);
      }
    }
  }
}
