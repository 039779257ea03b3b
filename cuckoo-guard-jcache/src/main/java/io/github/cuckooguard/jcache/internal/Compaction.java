package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.CuckooGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Drops the fingerprints of keys that left without a leave the guard could pair (expiry and
 * eviction of a Hazelcast cache: its events are asynchronous, with no "delivered up to here" to
 * order them with a rebuild): every {@value #EVERY_MILLIS} ms it compares the guard's fingerprints
 * with the cache's entries, and when the surplus passes {@value #MAX_LEAK} of the entries (and
 * {@value #SLACK} fingerprints) it rebuilds the guard from the cache's keys. A rebuild is the
 * core's: every key visible for the whole scan is read, and every key in flight (this member's
 * writes and the group's) is kept, so it never drops a present key's copy; it applies no leave at
 * all. After a compaction that took {@code d}, the next waits at least {@code 9 d}, so compactions
 * take at most a tenth of the time.
 *
 * <p>Thread safety: runs on its own daemon thread; {@link #close} stops it.
 */
final class Compaction implements AutoCloseable {

  /** The surplus of fingerprints over entries that starts a compaction, as a share of entries. */
  static final double MAX_LEAK = 0.02;

  /** A surplus below this many fingerprints never starts one (small caches). */
  static final long SLACK = 16;

  /** How often the surplus is checked. */
  static final long EVERY_MILLIS = 1_000;

  private static final Logger LOGGER = System.getLogger(Compaction.class.getName());

  private final CuckooGuard<?> guard;
  private final LongSupplier entries;
  private final ScheduledExecutorService timer;
  private volatile long notBefore = System.nanoTime();
  private volatile boolean running;

  Compaction(CuckooGuard<?> guard, LongSupplier entries) {
    this.guard = guard;
    this.entries = entries;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cuckoo-guard-compaction-" + guard.name());
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(
        this::checkSafely, EVERY_MILLIS, EVERY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void checkSafely() {
    try {
      check();
    } catch (RuntimeException e) {
      LOGGER.log(Level.DEBUG, "Cuckoo guard '" + guard.name() + "': compaction check failed", e);
    }
  }

  private void check() {
    if (running || System.nanoTime() - notBefore < 0 || guard.isPassThrough()) {
      return; // a rebuild is running or on its way anyway
    }
    long fingerprints = guard.stats().size();
    long held = entries.getAsLong();
    long surplus = fingerprints - held;
    if (surplus <= SLACK || surplus <= (long) (held * MAX_LEAK)) {
      return;
    }
    running = true;
    long started = System.nanoTime();
    guard
        .rebuild()
        .whenComplete(
            (ok, failure) -> {
              notBefore = System.nanoTime() + 9 * (System.nanoTime() - started);
              running = false;
            });
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
