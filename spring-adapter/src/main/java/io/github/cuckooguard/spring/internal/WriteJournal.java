package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The guarded writes of one guard that are in flight, and what a rebuild must know about them.
 *
 * <p><b>The problem.</b> With a store behind transactions, the guard's events are a transaction
 * away from the store's changes: an add is reported before the row is written, and the row
 * becomes visible at commit; a remove is reported after the commit. Two things follow.
 *
 * <ol>
 *   <li><em>In-flight keys.</em> A key reported before a rebuild started but committed after the
 *       scan passed it is in neither the scan nor the rebuild's own record of events; a delete
 *       committed during the scan whose {@code keyLeft} comes after the swap needs a copy in the
 *       new filter to remove. The {@link io.github.cuckooguard.KeySource} contract asks the
 *       adapter to emit such keys: every write in flight at any moment from the start of the
 *       rebuild ({@code RebuildListener.onStart}, before the new filter is installed) to the end
 *       of the scan is recorded, and the scan emits its key ({@link #forEachRecorded}), those
 *       recorded so far first, the rest after the store's keys.
 *   <li><em>Events out of order.</em> The guard requires that, per key, {@code keyEntered} and
 *       {@code keyLeft} alternate (a key is entered only while it is not tracked). A transactional
 *       store cannot promise that: an insert of a key that exists reports an enter before it
 *       fails (and is undone); a delete and a re-insert of one key, in one transaction or in two,
 *       report the new key's enter before the old key's deferred leave. Outside a rebuild that is
 *       harmless (the filter counts copies), but a rebuild relies on the order to decide which
 *       copies are redundant, and may drop the copy of a key that exists.
 * </ol>
 *
 * <p><b>The rule for events out of order.</b> A write's event is <em>risky</em> if it is the
 * undo of an add, or if another write of the same key was in flight at the same time
 * ({@code conflicted}). If a rebuild ran at any moment of a risky write's life, the guard is
 * marked stale <em>before</em> the event is delivered: the rebuild that may have dropped a copy
 * then cannot switch pass-through off, and the follow-up rebuild starts after the event. A
 * read-write lock makes "no rebuild has started" and the event atomic against the start of the
 * next rebuild. Rebuilds are rare (load, growth, drift, explicit), so in practice this costs an
 * extra rebuild when a rollback or a same-key race meets one; never a false negative.
 *
 * <p>Thread-safe: writes are opened, delivered and closed by application threads (a close may
 * run on the thread that completes a transaction); the rebuild thread starts and ends windows
 * and records. Per-key state exists only while a write of the key is in flight.
 */
final class WriteJournal {

  private final ConcurrentHashMap<Object, Flight> flights = new ConcurrentHashMap<>();
  private final ReentrantReadWriteLock windowLock = new ReentrantReadWriteLock();
  private volatile boolean windowOpen;
  private volatile long windowChanges;
  private volatile @Nullable Recording recording;

  /**
   * A write of {@code key} is about to start; the caller delivers its events through the returned
   * write and must {@link Write#close()} it.
   */
  Write open(Object key) {
    Flight flight = flights.compute(identity(key), (k, f) -> {
      Flight current = f == null ? new Flight() : f;
      synchronized (current) {
        current.open++;
        if (current.open > 1) {
          current.conflicted = true;
        }
      }
      return current;
    });
    Write write = new Write(key, flight, windowChanges);
    write.record();
    return write;
  }

  /** A rebuild starts (before it installs its new filter): window open, recording starts. */
  void rebuildStarted() {
    Lock exclusive = windowLock.writeLock();
    exclusive.lock();
    try {
      windowOpen = true;
      windowChanges++;
      Recording fresh = new Recording();
      recording = fresh;
      // Writes in flight now; a write that closes meanwhile records itself on close.
      for (Flight flight : flights.values()) {
        synchronized (flight) {
          for (Write write : flight.writes) {
            write.recordIn(fresh);
          }
        }
      }
    } finally {
      exclusive.unlock();
    }
  }

  /** A rebuild finished or failed: window closed, recording dropped. */
  void rebuildEnded() {
    Lock exclusive = windowLock.writeLock();
    exclusive.lock();
    try {
      windowOpen = false;
      windowChanges++;
      Recording current = recording;
      recording = null;
      if (current != null) {
        current.close();
      }
    } finally {
      exclusive.unlock();
    }
  }

  /**
   * Emits the key of every write recorded since the rebuild started and not emitted yet, one per
   * write. With {@code last}, recording stops first, so that nothing recorded is left behind.
   */
  void forEachRecorded(boolean last, Consumer<Object> action) {
    Recording current = recording;
    if (current == null) {
      return;
    }
    if (last) {
      current.close();
    }
    for (Object key = current.poll(); key != null; key = current.poll()) {
      action.accept(key);
    }
  }

  /** Map key of a guard key: integral numbers as Long, strings by content, arrays by content. */
  private static Object identity(Object key) {
    if (key instanceof Integer || key instanceof Short || key instanceof Byte) {
      return ((Number) key).longValue();
    }
    if (key instanceof CharSequence chars && !(key instanceof String)) {
      return chars.toString();
    }
    if (key instanceof byte[] bytes) {
      return ByteBuffer.wrap(bytes.clone());
    }
    return key;
  }

  /** The writes of one key in flight; guarded by its own monitor. */
  private static final class Flight {
    int open;
    boolean conflicted;
    final List<Write> writes = new ArrayList<>(2);
  }

  /** The keys recorded during one rebuild, in order; guarded by its own monitor. */
  private static final class Recording {
    private final Queue<Object> keys = new ArrayDeque<>();
    private boolean closed;

    synchronized void add(Object key) {
      if (!closed) {
        keys.add(key);
      }
    }

    synchronized @Nullable Object poll() {
      return keys.poll();
    }

    synchronized void close() {
      closed = true;
    }
  }

  /** One write in flight. */
  final class Write implements AutoCloseable {
    private final Object key;
    private final Flight flight;
    private final long windowChangesAtOpen;
    private final AtomicReference<@Nullable Recording> recordedIn = new AtomicReference<>();
    private boolean closed;

    private Write(Object key, Flight flight, long windowChangesAtOpen) {
      this.key = key;
      this.flight = flight;
      this.windowChangesAtOpen = windowChangesAtOpen;
      synchronized (flight) {
        flight.writes.add(this);
      }
    }

    private void record() {
      Recording current = recording;
      if (current != null) {
        recordIn(current);
      }
    }

    private void recordIn(Recording target) {
      if (recordedIn.getAndSet(target) != target) {
        target.add(key);
      }
    }

    /**
     * Delivers one event of this write to the guard ({@code keyEntered} or {@code keyLeft}),
     * marking the guard stale first if the event is risky and a rebuild overlapped this write.
     *
     * @param undo whether the event undoes this write's own add
     */
    void deliver(CuckooGuard<Object> guard, boolean undo, Runnable event) {
      // Lock order: window lock, then the key's monitor (as in rebuildStarted).
      Lock shared = windowLock.readLock();
      shared.lock();
      try {
        synchronized (flight) {
          boolean risky = undo || flight.conflicted;
          if (risky && (windowOpen || windowChanges != windowChangesAtOpen)) {
            guard.markStale((undo ? "an add was undone" : "writes of one key overlapped")
                + " while a rebuild ran; its filter may have dropped a copy");
          }
          event.run();
        }
      } finally {
        shared.unlock();
      }
    }

    /** The write is over (committed, rolled back, or failed). Idempotent. */
    @Override
    public void close() {
      synchronized (flight) {
        if (closed) {
          return;
        }
        closed = true;
        flight.writes.remove(this);
        flight.open--;
      }
      flights.computeIfPresent(identity(key), (k, f) -> {
        synchronized (f) {
          return f.open == 0 ? null : f;
        }
      });
      // Recorded on close too: a write that began before the recording started and ends during
      // it may have been missed by the snapshot of rebuildStarted.
      record();
    }
  }
}
