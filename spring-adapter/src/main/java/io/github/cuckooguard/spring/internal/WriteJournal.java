package io.github.cuckooguard.spring.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The guarded writes of one guard that are in flight, and the keys a rebuild scan must emit on
 * top of what the store returns.
 *
 * <p><b>Why.</b> With a store behind transactions, a guard's events are not atomic with the
 * store's changes: an add is reported before the row is written and the row becomes visible at
 * commit, a transaction later; a remove is reported after the commit, a moment later. A rebuild
 * that starts in between sees the store and the events out of step:
 *
 * <ul>
 *   <li>an add reported before the rebuild started, committed after the scan passed its key: the
 *       scan does not emit it and the new filter never heard of it (a false negative after the
 *       swap);
 *   <li>a delete committed before the rebuild started whose {@code keyLeft} arrives after: the
 *       rebuild takes it for the leave of a key it scanned, and removes the scanned copy of a key
 *       inserted again meanwhile (a false negative);
 *   <li>a delete committed during the scan whose {@code keyLeft} arrives after the swap: an
 *       unpaired remove for the new filter.
 * </ul>
 *
 * <p><b>What.</b> From the start of a rebuild ({@code RebuildListener.onStart}, which runs before
 * the rebuild installs its new filter) to the end of its scan, every write that is in flight at
 * any moment is recorded, and the scan emits one extra copy of its key. An extra copy is never
 * wrong (at worst it is a fingerprint no key needs, until the next rebuild), and it stands in for
 * the copy the new filter lacks in each case above. See {@code KeyScanSource}.
 *
 * <p>Thread-safe: writes are opened and closed by application threads (a close may run on the
 * thread completing a transaction); recordings are started and taken by the rebuild thread, one
 * at a time.
 */
final class WriteJournal {

  private final Set<Write> inFlight = ConcurrentHashMap.newKeySet();
  private volatile @Nullable Set<Write> recording;

  /** A write of {@code key} is about to start; the caller must {@link Write#close()} it. */
  Write open(Object key) {
    Write write = new Write(key);
    inFlight.add(write);
    record(write);
    return write;
  }

  /** The number of writes in flight. */
  int inFlight() {
    return inFlight.size();
  }

  /**
   * A rebuild starts: from now until {@link #takeRecording()} every write in flight is recorded,
   * beginning with those in flight now.
   */
  void startRecording() {
    Set<Write> fresh = ConcurrentHashMap.newKeySet();
    recording = fresh;
    // A write that closes between the line above and this copy records itself on close; one that
    // closed before the line above ended (and delivered its event) before the rebuild started.
    fresh.addAll(inFlight);
  }

  /** The scan ended: stops recording and returns the keys of the writes recorded, one per write. */
  List<Object> takeRecording() {
    Set<Write> taken = recording;
    recording = null;
    List<Object> keys = new ArrayList<>(taken == null ? 0 : taken.size());
    if (taken != null) {
      for (Write write : taken) {
        keys.add(write.key);
      }
    }
    return keys;
  }

  /** A rebuild failed: stops recording. */
  void abandonRecording() {
    recording = null;
  }

  private void record(Write write) {
    Set<Write> current = recording;
    if (current != null) {
      current.add(write);
    }
  }

  /** One write in flight. Closing is idempotent. */
  final class Write implements AutoCloseable {
    private final Object key;

    private Write(Object key) {
      this.key = key;
    }

    @Override
    public void close() {
      if (inFlight.remove(this)) {
        // Recorded on close as well: a write that began before the recording started and ends
        // during it may have been missed by the snapshot of startRecording.
        record(this);
      }
    }
  }
}
