package io.github.cuckooguard.cluster.hazelcast;

import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.DumpChunk;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The serving side of the peer-dump join: one session per joining member's request, each holding
 * one snapshot of this member's filter, served as its {@code scanDump} chunks, each chunk in pieces
 * of bounded size (a chunk holds up to 8 MiB; a Hazelcast message should not).
 *
 * <p>Why a joiner never assembles two filters: a session's snapshot is taken once, when it opens,
 * and every chunk of the session is dumped from that snapshot, which nothing writes to; each chunk
 * carries the snapshot's dump id and the joiner loads one session's chunks into one loader, which
 * refuses a chunk of another dump. A session that is gone (expired, this member restarted) is
 * refused, never re-snapshotted under the same id.
 *
 * <p>Thread-safe: requests of different sessions run concurrently; one joiner asks one request at a
 * time per session.
 */
final class DumpServer<K> {

  /** A session unused this long is dropped (its joiner died or gave up without closing). */
  static final long IDLE_MILLIS = 60_000;

  private static final class Session<K> {
    final CuckooFilter<K> snapshot;
    volatile long lastUsed;
    @Nullable DumpChunk chunk;
    long chunkAt = -1;

    Session(CuckooFilter<K> snapshot, long now) {
      this.snapshot = snapshot;
      this.lastUsed = now;
    }
  }

  /** Where sessions get their snapshot. */
  @FunctionalInterface
  interface Snapshots<K> {
    /** A snapshot this member may serve (fresh lease, complete filter), or null. */
    @Nullable CuckooFilter<K> take();
  }

  private final Snapshots<K> snapshots;
  private final LongSupplier clock;
  private final ConcurrentHashMap<Long, Session<K>> sessions = new ConcurrentHashMap<>();
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong piecesServed = new AtomicLong();

  DumpServer(Snapshots<K> snapshots, LongSupplier clock) {
    this.snapshots = snapshots;
    this.clock = clock;
  }

  DumpReply handle(DumpTask task) {
    long now = clock.getAsLong();
    switch (task.kind) {
      case OPEN:
        return open(now);
      case PIECE:
        return piece(task, now);
      case CLOSE:
        sessions.remove(task.session);
        return new DumpReply(null, task.session, 0, 0, 0, new byte[0]);
      default:
        throw new IllegalArgumentException("not a dump request: " + task);
    }
  }

  private DumpReply open(long now) {
    sessions.values().removeIf(s -> now - s.lastUsed > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS));
    CuckooFilter<K> snapshot = snapshots.take();
    if (snapshot == null) {
      return DumpReply.refused(
          "this member may not answer \"absent\" now (no fresh lease, or its filter is not"
              + " complete), so its filter may lack a present key");
    }
    long id = ThreadLocalRandom.current().nextLong();
    Session<K> session = new Session<>(snapshot, now);
    while (sessions.putIfAbsent(id, session) != null) {
      id = ThreadLocalRandom.current().nextLong();
    }
    opened.incrementAndGet();
    DumpChunk header = snapshot.scanDump(0);
    return new DumpReply(null, id, header.cursor(), header.data().length, 0, header.data());
  }

  private DumpReply piece(DumpTask task, long now) {
    Session<K> s = sessions.get(task.session);
    if (s == null) {
      return DumpReply.refused("no dump session " + task.session + " (expired or never opened)");
    }
    s.lastUsed = now;
    DumpChunk chunk;
    synchronized (s) {
      if (s.chunkAt != task.cursor || s.chunk == null) {
        s.chunk = s.snapshot.scanDump(task.cursor);
        s.chunkAt = task.cursor;
      }
      chunk = s.chunk;
    }
    if (chunk.isEnd()) {
      return new DumpReply(null, task.session, 0, 0, 0, new byte[0]);
    }
    byte[] data = chunk.data();
    int from = Math.min(task.offset, data.length);
    int to = (int) Math.min(data.length, (long) from + task.maxBytes);
    piecesServed.incrementAndGet();
    return new DumpReply(
        null, task.session, chunk.cursor(), data.length, from, Arrays.copyOfRange(data, from, to));
  }

  /** Sessions opened (snapshots taken for joiners). */
  long opened() {
    return opened.get();
  }

  /** Pieces served. */
  long piecesServed() {
    return piecesServed.get();
  }

  void clear() {
    sessions.clear();
  }
}
