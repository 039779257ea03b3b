package io.github.cuckooguard.internal;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/** The chunked form ({@code scanDump}): one chunk per call, layout in {@link DumpFormat}. */
public final class ChunkDump {

  /**
   * Bytes of a chunk before its words: dump id, seed, writes, sub-filter, first word, word count.
   */
  static final int CHUNK_HEAD = 8 + 8 + 8 + 4 + 4 + 4;

  private ChunkDump() {}

  /** A chunk's next cursor and bytes. */
  public record ChunkBytes(long cursor, byte[] data) {}

  /** The chunk for {@code cursor}: cursor 0 is the header; null past the end. */
  public static @Nullable ChunkBytes chunk(FilterCore core, String funnelId, long cursor) {
    return core.locked(
        () -> {
          Table[] ts = core.tables();
          DumpIdentity identity = core.dumpIdentity();
          if (cursor == 0) {
            return new ChunkBytes(1, DumpHeader.encode(core, ts, funnelId, identity));
          }
          long offset = cursor - 1;
          long start = 0;
          for (int i = 0; i < ts.length; i++) {
            long words = ts[i].data.length;
            if (offset < start + words) {
              int first = (int) (offset - start);
              int count = (int) Math.min(DumpFormat.MAX_CHUNK_WORDS, words - first);
              ByteBuffer buf = ByteBuffer.allocate(CHUNK_HEAD + count * 8 + 4);
              buf.putLong(identity.id()).putLong(core.seed).putLong(core.writesRaw());
              buf.putInt(i).putInt(first).putInt(count);
              for (int k = 0; k < count; k++) {
                buf.putLong(ts[i].data[first + k]);
              }
              buf.putInt(DumpFormat.crc(buf.array(), 0, buf.position()));
              return new ChunkBytes(cursor + count, buf.array());
            }
            start += words;
          }
          return null;
        });
  }
}
