package io.github.cuckooguard;

import java.util.Arrays;
import java.util.Objects;

/**
 * One piece of a filter exported by {@code scanDump}, the pair RedisBloom's {@code CF.SCANDUMP}
 * replies with. Pass {@link #cursor()} to the next {@code scanDump} call, and pass both fields,
 * unchanged and in order, to {@link ChunkLoader#loadChunk}.
 *
 * @param cursor the cursor to continue from; 0 once the dump is complete
 * @param data the chunk's bytes (self-checking: each carries its own checksum); empty at the end
 */
public record DumpChunk(long cursor, byte[] data) {

  /** The chunk returned past the end of a dump: cursor 0, no data. */
  public static final DumpChunk END = new DumpChunk(0, new byte[0]);

  public DumpChunk {
    Objects.requireNonNull(data, "data");
    if (cursor < 0) {
      throw new IllegalArgumentException("cursor (" + cursor + ") must be >= 0");
    }
  }

  /** True for the end marker (cursor 0). */
  public boolean isEnd() {
    return cursor == 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DumpChunk c && c.cursor == cursor && Arrays.equals(c.data, data);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(cursor) * 31 + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "DumpChunk[cursor=" + cursor + ", bytes=" + data.length + "]";
  }
}
