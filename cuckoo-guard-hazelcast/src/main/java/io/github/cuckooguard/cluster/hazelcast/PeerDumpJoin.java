package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.IExecutorService;
import io.github.cuckooguard.ChunkLoader;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.spi.FilterTransfer;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The joining side of the peer-dump join: the {@link FilterTransfer} of the rebuild a member starts
 * after its JOIN round was granted. It asks the other members, one after the other, for a snapshot
 * and streams the first one served ({@link DumpServer}); if a peer refuses, dies or times out
 * mid-stream, or its chunks are refused by the loader, it tries the next one with a new loader; if
 * none serves one, the rebuild scans this member's KeySource instead.
 *
 * <p>Why no present key is reported absent after such a join (the rebuild's half is in the core's
 * RebuildState): the joiner is subscribed before it asks (every member granted its JOIN, so every
 * writer delivers its begins to it at its epoch, or revokes it and it cannot complete at that
 * epoch; enters begun before the JOIN ended before the grant), and its rebuild is installed before
 * {@link #load} runs, so every write the joiner applies from then on is kept by the rebuild and
 * added to the loaded filter. The peer takes the snapshot when the OPEN request reaches it, after
 * that, under its guard's write lock, while it holds a fresh lease with a complete filter (checked
 * before and after the copy, under its receiver lock so that no lapse comes between), which is when
 * its filter holds every key visible at the source: a key made visible without the peer's
 * acknowledgement was made visible only after the peer's lease had run out. So a present key is in
 * the peer's snapshot, or its enter reached the joiner after the joiner subscribed.
 */
final class PeerDumpJoin<K> implements FilterTransfer<K> {

  private static final Logger LOGGER = System.getLogger(PeerDumpJoin.class.getName());

  private final String group;
  private final UUID self;
  private final IExecutorService executor;
  private final Supplier<List<Member>> peers;
  private final int pieceBytes;
  private final long requestTimeoutNanos;
  private final long retryNanos;
  private final Runnable loaded;
  private final PieceListener pieceListener;

  /** Test hook: told of every piece received, on the joining thread, before it asks the next. */
  @FunctionalInterface
  interface PieceListener {
    PieceListener NONE = (peer, pieces) -> {};

    /**
     * @param peer the member serving the stream
     * @param pieces pieces received from it in this stream so far, this one included
     */
    void received(Member peer, int pieces) throws InterruptedException;
  }

  /**
   * @param peers the members to ask, in order, read when the transfer runs
   * @param retryNanos how long to keep asking while every peer refuses
   * @param loaded called when a peer's dump was loaded
   * @param pieceListener test hook, {@link PieceListener#NONE} but in tests
   */
  PeerDumpJoin(
      String group,
      UUID self,
      IExecutorService executor,
      Supplier<List<Member>> peers,
      int pieceBytes,
      long requestTimeoutNanos,
      long retryNanos,
      Runnable loaded,
      PieceListener pieceListener) {
    this.group = group;
    this.self = self;
    this.executor = executor;
    this.peers = peers;
    this.pieceBytes = pieceBytes;
    this.requestTimeoutNanos = requestTimeoutNanos;
    this.retryNanos = retryNanos;
    this.loaded = loaded;
    this.pieceListener = pieceListener;
  }

  /** A peer answered that it may not serve a snapshot now (no fresh lease, filter incomplete). */
  private static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String why) {
      super("refused: " + why);
    }
  }

  /**
   * Asks the peers in turn. While every peer that answered refused (none may answer "absent" at the
   * moment: a lapse of the whole group, peers still joining themselves), asks again for up to
   * {@code retryNanos}, so that one lapse does not make every member scan its source.
   */
  @Override
  public CuckooFilter<K> load(Supplier<ChunkLoader<CuckooFilter<K>>> loaders) throws Exception {
    List<String> failures = new ArrayList<>();
    long deadline = System.nanoTime() + retryNanos;
    while (true) {
      boolean onlyRefused = true;
      for (Member peer : peers.get()) {
        try {
          CuckooFilter<K> filter = stream(peer, loaders.get());
          loaded.run();
          return filter;
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          onlyRefused &= e instanceof Refused;
          String why = peer.getUuid() + ": " + e;
          failures.add(why);
          LOGGER.log(
              Level.DEBUG,
              () ->
                  "guard group '" + group + "': no dump from " + why + "; trying the next member");
        }
      }
      if (failures.isEmpty() || !onlyRefused || System.nanoTime() - deadline > 0) {
        break;
      }
      TimeUnit.NANOSECONDS.sleep(retryNanos / 8);
    }
    throw new IOException(
        "no member could serve a dump of guard group '"
            + group
            + "'"
            + (failures.isEmpty() ? " (no other member)" : ": " + failures));
  }

  /** The snapshot of {@code peer}, all its chunks into {@code loader} (one session, one dump). */
  private CuckooFilter<K> stream(Member peer, ChunkLoader<CuckooFilter<K>> loader)
      throws Exception {
    DumpReply header = ask(peer, new DumpTask(group, self, DumpTask.Kind.OPEN, 0, 0, 0, 0));
    long session = header.session;
    try {
      loader.loadChunk(header.nextCursor, header.bytes);
      long cursor = header.nextCursor;
      int pieces = 0;
      while (true) {
        DumpReply first = ask(peer, piece(session, cursor, 0));
        pieceListener.received(peer, ++pieces);
        if (first.isEnd()) {
          return loader.complete();
        }
        byte[] chunk = new byte[first.chunkLength];
        int filled = copy(first, chunk, 0);
        while (filled < chunk.length) {
          DumpReply next = ask(peer, piece(session, cursor, filled));
          pieceListener.received(peer, ++pieces);
          if (next.nextCursor != first.nextCursor || next.chunkLength != first.chunkLength) {
            throw new IOException("the pieces of the chunk at cursor " + cursor + " disagree");
          }
          filled = copy(next, chunk, filled);
        }
        loader.loadChunk(first.nextCursor, chunk); // checks the chunk's CRC and dump id
        cursor = first.nextCursor;
      }
    } finally {
      try {
        executor.submitToMember(
            new DumpTask(group, self, DumpTask.Kind.CLOSE, session, 0, 0, 0), peer);
      } catch (RuntimeException e) {
        // the peer is gone; its session expires with it
      }
    }
  }

  private DumpTask piece(long session, long cursor, int offset) {
    return new DumpTask(group, self, DumpTask.Kind.PIECE, session, cursor, offset, pieceBytes);
  }

  private static int copy(DumpReply piece, byte[] chunk, int filled) throws IOException {
    if (piece.offset != filled
        || piece.bytes.length == 0
        || filled + piece.bytes.length > chunk.length) {
      throw new IOException(
          "piece at offset " + piece.offset + " does not continue the chunk at " + filled);
    }
    System.arraycopy(piece.bytes, 0, chunk, filled, piece.bytes.length);
    return filled + piece.bytes.length;
  }

  private DumpReply ask(Member peer, DumpTask task) throws Exception {
    Future<DumpReply> reply = executor.submitToMember(task, peer);
    DumpReply r;
    try {
      r = reply.get(requestTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      reply.cancel(true);
      throw new IOException("no answer to " + task + " in time", e);
    } catch (ExecutionException e) {
      throw new IOException(task + " failed: " + e.getCause(), e.getCause());
    }
    if (r.refusal != null) {
      throw new Refused(r.refusal);
    }
    return r;
  }
}
