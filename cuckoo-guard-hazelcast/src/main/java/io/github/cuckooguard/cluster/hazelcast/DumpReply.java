package io.github.cuckooguard.cluster.hazelcast;

import java.io.Serial;
import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * A serving member's answer to a {@link DumpTask}: a piece of one scanDump chunk of the session's
 * snapshot, or a refusal with its reason.
 */
final class DumpReply implements Serializable {

  @Serial private static final long serialVersionUID = 1L;

  /** Why the request was refused (not leased or not complete, no such session), or null. */
  final @Nullable String refusal;

  /** The session the piece belongs to (one snapshot). */
  final long session;

  /** The cursor scanDump returned with the chunk (to load it with); 0 once the dump has ended. */
  final long nextCursor;

  /** The whole chunk's length in bytes. */
  final int chunkLength;

  /** Where {@link #bytes} start in the chunk. */
  final int offset;

  /** The piece. */
  final byte[] bytes;

  DumpReply(
      @Nullable String refusal,
      long session,
      long nextCursor,
      int chunkLength,
      int offset,
      byte[] bytes) {
    this.refusal = refusal;
    this.session = session;
    this.nextCursor = nextCursor;
    this.chunkLength = chunkLength;
    this.offset = offset;
    this.bytes = bytes;
  }

  static DumpReply refused(String why) {
    return new DumpReply(why, 0, 0, 0, 0, new byte[0]);
  }

  /** Whether the session's dump has no more chunks. */
  boolean isEnd() {
    return refusal == null && nextCursor == 0;
  }
}
