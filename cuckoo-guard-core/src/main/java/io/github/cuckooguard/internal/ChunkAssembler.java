package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.DumpFormat.check;

import io.github.cuckooguard.CorruptDumpException;
import java.nio.ByteBuffer;

/**
 * Accumulates the chunks of one scan dump in order; produces a filter only when every chunk arrived
 * intact and the body's digest is the header's. A refused chunk changes nothing: every check runs
 * before a word is copied, so the right chunk can be given next. Not thread-safe.
 */
public final class ChunkAssembler {

  private final String funnelId;
  private DumpHeader header;
  private long[][] words;
  private int table;
  private int word;
  private long globalWord;

  public ChunkAssembler(String funnelId) {
    this.funnelId = funnelId;
  }

  public void load(long cursor, byte[] bytes) throws CorruptDumpException {
    if (header == null) {
      check(cursor == 1, "the first chunk must be the header (cursor 1), got cursor %s", cursor);
      DumpHeader h = DumpHeader.parse(bytes);
      DumpFormat.checkFunnel(h, funnelId);
      header = h;
      words = new long[h.segments().length][];
      return;
    }
    check(table < words.length, "chunk at cursor %s arrived after the dump was complete", cursor);
    int head = ChunkDump.CHUNK_HEAD;
    check(
        bytes.length >= head + 4 && (bytes.length - head - 4) % 8 == 0,
        "chunk of %s bytes is malformed",
        bytes.length);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    long dumpId = buf.getLong();
    long seed = buf.getLong();
    long writes = buf.getLong();
    int t = buf.getInt();
    int first = buf.getInt();
    int count = buf.getInt();
    check(
        buf.getInt(bytes.length - 4) == DumpFormat.crc(bytes, 0, bytes.length - 4),
        "chunk checksum mismatch at cursor %s: the chunk is corrupt",
        cursor);
    check(
        seed == header.seed(),
        "chunk at cursor %s belongs to the dump of another filter (seed %s, this dump's header has %s):"
            + " load the chunks of one dump only",
        cursor,
        seed,
        header.seed());
    check(
        writes == header.writes(),
        "chunk at cursor %s was taken after the filter changed (%s writes, %s when the header was"
            + " taken): a scan dump is a snapshot only while nothing writes to the filter. Dump it again"
            + " from cursor 0 while no writer runs, or use writeTo for a consistent copy of a live filter",
        cursor,
        writes,
        header.writes());
    check(
        dumpId == header.dumpId(),
        "chunk at cursor %s belongs to another dump (dump id %016x, this dump's header has %016x): it is of"
            + " another filter with the same seed and write count, or of this one before it was reloaded."
            + " Load the chunks of one dump only",
        cursor,
        dumpId,
        header.dumpId());
    check(
        t == table && first == word,
        "chunk out of order: got sub-filter %s word %s, expected sub-filter %s word %s",
        t,
        first,
        table,
        word);
    long total = header.words(t);
    check(
        count > 0 && count == (bytes.length - head - 4) / 8 && first + (long) count <= total,
        "chunk word count %s does not fit sub-filter %s",
        count,
        t);
    check(
        cursor == 1 + globalWord + count,
        "cursor %s does not match the chunk (expected %s)",
        cursor,
        1 + globalWord + count);
    long[] dst = DumpFormat.room(words[t], first + (long) count, total);
    words[t] = dst;
    for (int k = 0; k < count; k++) {
      dst[first + k] = buf.getLong();
    }
    word += count;
    globalWord += count;
    if (word == total) {
      table++;
      word = 0;
    }
  }

  public FilterCore complete() throws CorruptDumpException {
    check(header != null, "no header chunk was loaded");
    check(
        table == words.length,
        "the dump is incomplete: %s of %s words loaded",
        globalWord,
        header.totalWords());
    // Every chunk carried the header's dump id; the digest also binds their words to the header.
    DumpFormat.checkDigest(header, DumpFormat.digest(words));
    Table[] tables = new Table[words.length];
    for (int i = 0; i < tables.length; i++) {
      tables[i] = header.table(i, words[i]);
    }
    return DumpFormat.assemble(header, tables);
  }
}
