package io.github.cuckooguard;

import io.github.cuckooguard.internal.ChunkAssembler;
import io.github.cuckooguard.internal.FilterCore;
import java.util.Objects;
import java.util.function.Function;

/**
 * Rebuilds a filter from the chunks of {@code scanDump} (CF.LOADCHUNK). Feed every chunk, in order,
 * with the cursor it was returned with, then call {@link #complete()}. No filter exists until then,
 * so a bad chunk never leaves a half-loaded filter behind. Not thread-safe.
 *
 * <p>Every chunk carries the dump id of its header, and the header the digest of the whole body: a
 * chunk of another filter (even one with the same seed and write count, such as two replicas loaded
 * from one dump and written once each), or of this filter at another time, is refused by {@link
 * #loadChunk}; a body that is not the header's is refused by {@link #complete}. Both throw {@link
 * CorruptDumpException}.
 *
 * @param <F> the filter type produced
 */
public final class ChunkLoader<F extends AbstractCuckooFilter> {

  private final ChunkAssembler loader;
  private final Function<FilterCore, F> factory;
  private boolean done;

  ChunkLoader(String funnelId, Function<FilterCore, F> factory) {
    this.loader = new ChunkAssembler(funnelId);
    this.factory = factory;
  }

  /**
   * Loads one chunk. A refused chunk changes nothing: the chunks loaded before stay loaded, so the
   * correct chunk can be given next.
   *
   * @param cursor the cursor {@code scanDump} returned together with {@code data}
   * @param data the chunk's bytes
   * @throws CorruptDumpException if the chunk is corrupt, out of order, of another dump (another
   *     filter, or this one at another time), of another format version or hash scheme
   * @throws IllegalArgumentException if the header was written with another funnel
   * @throws IllegalStateException after {@link #complete()} succeeded
   */
  public void loadChunk(long cursor, byte[] data) throws CorruptDumpException {
    Objects.requireNonNull(data, "data");
    if (done) {
      throw new IllegalStateException("complete() was already called; start a new loader");
    }
    loader.load(cursor, data);
  }

  /**
   * Convenience for {@code loadChunk(chunk.cursor(), chunk.data())}.
   *
   * @throws CorruptDumpException as {@link #loadChunk(long, byte[])}
   */
  public void loadChunk(DumpChunk chunk) throws CorruptDumpException {
    Objects.requireNonNull(chunk, "chunk");
    loadChunk(chunk.cursor(), chunk.data());
  }

  /**
   * The loaded filter.
   *
   * @throws CorruptDumpException if chunks are missing, the body is not the one the header was
   *     written with (its digest differs), or the content fails validation
   * @throws IllegalStateException if it already succeeded once
   */
  public F complete() throws CorruptDumpException {
    if (done) {
      throw new IllegalStateException("complete() was already called; start a new loader");
    }
    F f = factory.apply(loader.complete());
    done = true;
    return f;
  }
}
