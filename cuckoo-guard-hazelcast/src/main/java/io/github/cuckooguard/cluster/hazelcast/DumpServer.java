package io.github.cuckooguard.cluster.hazelcast;

import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.DumpChunk;
import java.util.Arrays;
import java.util.UUID;
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
 * <p>Why a session does not outlive its joiner: a joiner killed mid-stream sends no CLOSE, and its
 * session would pin a whole copy of the filter. Each session records the joiner that opened it and
 * is dropped when Hazelcast removes that member ({@link #joinerGone}); a session idle for {@value
 * #IDLE_MILLIS} ms (a joiner alive but gone quiet) is dropped by the periodic {@link #dropIdle}.
 * Neither holds a lock a writer takes: a session is a private copy, so a dead joiner never blocks a
 * write here (its enters are waited out by its lease, as for any silent member).
 *
 * <p>Thread-safe: requests of different sessions run concurrently; one joiner asks one request at a
 * time per session.
 */
final class DumpServer<K> {

  /** A session unused this long is dropped (its joiner died or gave up without closing). */
  static final long IDLE_MILLIS = 60_000;

  private static final class Session<K> {
    final UUID joiner;
    final CuckooFilter<K> snapshot;
    volatile long lastUsed;
    @Nullable DumpChunk chunk;
    long chunkAt = -1;

    Session(UUID joiner, CuckooFilter<K> snapshot, long now) {
      this.joiner = joiner;
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
        return open(task.from, now);
      case PIECE:
        return piece(task, now);
      case CLOSE:
        sessions.remove(task.session);
        return new DumpReply(null, task.session, 0, 0, 0, new byte[0]);
      default:
        throw new IllegalArgumentException("not a dump request: " + task);
    }
  }

  private DumpReply open(UUID joiner, long now) {
    dropIdle(now);
    CuckooFilter<K> snapshot = snapshots.take();
    if (snapshot == null) {
      return DumpReply.refused(
          "this member may not answer \"absent\" now (no fresh lease, or its filter is not"
              + " complete), so its filter may lack a present key");
    }
    long id = ThreadLocalRandom.current().nextLong();
    Session<K> session = new Session<>(joiner, snapshot, now);
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

  /** Drops the sessions unused for {@value #IDLE_MILLIS} ms at {@code now}. */
  void dropIdle(long now) {
    sessions.values().removeIf(s -> now - s.lastUsed > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS));
  }

  /** Drops the sessions {@code joiner} opened: Hazelcast removed it, it will not close them. */
  void joinerGone(UUID joiner) {
    sessions.values().removeIf(s -> s.joiner.equals(joiner));
  }

  /** Sessions open now (each pins a snapshot). */
  int openSessions() {
    return sessions.size();
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
