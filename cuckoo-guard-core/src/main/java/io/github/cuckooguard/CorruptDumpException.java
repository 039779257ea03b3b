package io.github.cuckooguard;

import java.io.IOException;

/**
 * A dump that cannot be read back: truncated, corrupt (a checksum or digest differs), out of range,
 * out of order, of an unsupported format version or hash scheme, or made of parts of different
 * dumps (a header of one with the body of another, a chunk of another filter or of this filter at
 * another time). The message names what was wrong.
 *
 * <p>It is the one exception for a bad dump on every path: {@code readFrom} of both filters, {@link
 * ChunkLoader#loadChunk} and {@link ChunkLoader#complete}. It extends {@link IOException} because a
 * dump is input from outside the program (a file, a socket, a Redis reply), which the caller must
 * be ready to find damaged: {@code readFrom} already declares {@code IOException}, so its callers
 * catch it unchanged, and the loader's callers are told by the compiler. Whatever is refused,
 * nothing was built from it: no filter exists until a read or a load completes.
 *
 * <p>Not a bad dump, and so not this exception: reading a dump with another funnel than it was
 * written with ({@link IllegalArgumentException}: the caller passed the wrong funnel), and using a
 * loader after {@link ChunkLoader#complete} ({@link IllegalStateException}).
 */
public class CorruptDumpException extends IOException {

  private static final long serialVersionUID = 1L;

  /** A refusal with a message naming what was wrong. */
  public CorruptDumpException(String message) {
    super(message);
  }
}
