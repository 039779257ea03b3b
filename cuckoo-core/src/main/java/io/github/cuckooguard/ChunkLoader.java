package io.github.cuckooguard;

import io.github.cuckooguard.internal.DumpFormat;
import io.github.cuckooguard.internal.FilterCore;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Function;

/**
 * Rebuilds a filter from the chunks of {@code scanDump} (CF.LOADCHUNK). Feed every chunk, in
 * order, with the cursor it was returned with, then call {@link #complete()}. No filter exists
 * until then, so a bad chunk never leaves a half-loaded filter behind. Not thread-safe.
 *
 * @param <F> the filter type produced
 */
public final class ChunkLoader<F extends AbstractCuckooFilter> {

  private final DumpFormat.Loader loader;
  private final Function<FilterCore, F> factory;
  private boolean done;

  ChunkLoader(String funnelId, Function<FilterCore, F> factory) {
    this.loader = new DumpFormat.Loader(funnelId);
    this.factory = factory;
  }

  /**
   * Loads one chunk.
   *
   * @param cursor the cursor {@code scanDump} returned together with {@code data}
   * @param data the chunk's bytes
   * @throws IllegalArgumentException if the chunk is corrupt, out of order, from a dump of
   *     another format version or hash scheme, or was written with another funnel; the chunks
   *     loaded before stay loaded, so the correct chunk can be retried
   * @throws IllegalStateException after {@link #complete()}
   */
  public void loadChunk(long cursor, byte[] data) {
    Objects.requireNonNull(data, "data");
    if (done) {
      throw new IllegalStateException("complete() was already called; start a new loader");
    }
    try {
      loader.load(cursor, data);
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** Convenience for {@code loadChunk(chunk.cursor(), chunk.data())}. */
  public void loadChunk(DumpChunk chunk) {
    Objects.requireNonNull(chunk, "chunk");
    loadChunk(chunk.cursor(), chunk.data());
  }

  /**
   * The loaded filter.
   *
   * @throws IllegalStateException if chunks are missing or the content fails validation
   */
  public F complete() {
    if (done) {
      throw new IllegalStateException("complete() was already called; start a new loader");
    }
    try {
      F f = factory.apply(loader.complete());
      done = true;
      return f;
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
