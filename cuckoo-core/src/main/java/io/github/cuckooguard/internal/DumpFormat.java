package io.github.cuckooguard.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The binary form of a filter, shared by {@code writeTo}/{@code readFrom} (one stream) and
 * {@code scanDump}/{@code loadChunk} (bounded chunks). All integers big-endian.
 *
 * <pre>
 * Header (also the first chunk of a scan dump)
 *   int    magic 0x434B4746 ("CKGF")
 *   byte   format version (2)
 *   byte   length, then UTF-8 bytes: hash scheme ("xxh3-64")
 *   short  length, then UTF-8 bytes: funnel id (see Funnel.id())
 *   long   seed
 *   byte   fingerprint bits f (4..16)
 *   byte   bucket size b (2, 4 or 8)
 *   int    max kicks
 *   int    expansion
 *   int    buckets per segment n (even)
 *   long   items stored
 *   long   items deleted
 *   long   writes: successful adds, removes and growths of the filter so far
 *   short  sub-filter count t (1..32)
 *   t ×    (int segments, long items)         segments of sub-filter i must be expansion^i
 *   int    CRC32C of all header bytes before it
 *
 * Stream body (writeTo): the words of each sub-filter in order (as many as the header implies),
 *   then int CRC32C of the body bytes.
 * Chunk body (scanDump cursor c &gt;= 1): long seed, long writes (both as at the time of the
 *   chunk), int sub-filter, int first word, int word count, the words, int CRC32C of the chunk's
 *   bytes before it. Cursor c addresses global word c − 1; a chunk is returned with cursor
 *   1 + (global first word) + (word count); chunks never span sub-filters.
 * </pre>
 *
 * A reader checks every field against its range, both checksums, that unused padding bits are
 * zero, and that the stored item counts equal the occupied slots. A loader of chunks also checks
 * that every chunk carries the header's seed and write count: a chunk of another filter, or one
 * taken after the filter changed, would otherwise load silently, and a fingerprint that a kick
 * moved from a not-yet-dumped bucket into an already-dumped one would be lost (a false negative).
 * Format 1 (before the write counts) is refused with a message saying so.
 */
public final class DumpFormat {

  public static final int MAGIC = 0x434B4746;
  public static final int VERSION = 2;
  public static final String HASH_SCHEME = "xxh3-64";
  /**
   * Words of a sub-filter allocated before its data arrives; larger tables grow (doubling) as it
   * does, so a header that declares a huge table (a corrupt or crafted dump whose checksum holds)
   * costs memory only for the bytes really supplied, not the gigabytes it claims. 8 Mi words =
   * 64 MiB: a filter of up to ~33 M keys at 16 bits is read with one allocation per sub-filter.
   */
  private static final int EAGER_WORDS = 1 << 23;

  /** Bytes of a chunk before its words: seed, writes, sub-filter, first word, word count. */
  private static final int CHUNK_HEAD = 8 + 8 + 4 + 4 + 4;
  /** Words per scan-dump chunk at most: 8 MiB of fingerprints. */
  public static final int MAX_CHUNK_WORDS = 1 << 20;

  private DumpFormat() {}

  /** The parsed header: everything needed to allocate the tables. */
  public record Header(
      String hashScheme,
      String funnelId,
      long seed,
      int fingerprintBits,
      int bucketSize,
      int maxKicks,
      int expansion,
      int localBuckets,
      long items,
      long deletes,
      long writes,
      int[] segments,
      long[] tableItems) {

    long words(int table) {
      return Table.wordCount(fingerprintBits, bucketSize, localBuckets, segments[table]);
    }

    long totalWords() {
      long w = 0;
      for (int i = 0; i < segments.length; i++) {
        w += words(i);
      }
      return w;
    }
  }

  // ---- header ----

  /** The header of {@code core} with {@code tables}; call under the writer lock. */
  public static byte[] header(FilterCore core, Table[] tables, String funnelId) {
    byte[] scheme = HASH_SCHEME.getBytes(StandardCharsets.UTF_8);
    byte[] funnel = funnelId.getBytes(StandardCharsets.UTF_8);
    if (funnel.length > Short.MAX_VALUE) {
      throw new IllegalArgumentException("funnel id is longer than " + Short.MAX_VALUE + " bytes");
    }
    ByteBuffer buf = ByteBuffer.allocate(4 + 1 + 1 + scheme.length + 2 + funnel.length + 8 + 1 + 1
        + 4 + 4 + 4 + 8 + 8 + 8 + 2 + tables.length * 12 + 4);
    buf.putInt(MAGIC).put((byte) VERSION);
    buf.put((byte) scheme.length).put(scheme);
    buf.putShort((short) funnel.length).put(funnel);
    buf.putLong(core.seed).put((byte) core.fingerprintBits).put((byte) core.bucketSize);
    buf.putInt(core.maxKicks).putInt(core.expansion).putInt(core.localBuckets);
    buf.putLong(core.itemsRaw()).putLong(core.deletes()).putLong(core.writesRaw());
    buf.putShort((short) tables.length);
    for (Table t : tables) {
      buf.putInt(t.segments).putLong(t.items);
    }
    buf.putInt(crc(buf.array(), 0, buf.position()));
    return buf.array();
  }

  /** Parses and validates a header; throws {@link CorruptDumpException} naming the bad field. */
  public static Header parseHeader(byte[] bytes) throws CorruptDumpException {
    try {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      int magic = buf.getInt();
      check(magic == MAGIC, "not a cuckoo filter dump (magic %08x, expected %08x)", magic, MAGIC);
      int version = buf.get();
      check(version == VERSION, "unsupported format version %s (this build reads %s%s)", version, VERSION,
          version == 1 ? "; version 1 dumps were written by an earlier snapshot build: dump the filter again" : "");
      String scheme = string(buf, buf.get() & 0xFF);
      String funnel = string(buf, buf.getShort() & 0xFFFF);
      long seed = buf.getLong();
      int f = buf.get();
      int b = buf.get();
      int maxKicks = buf.getInt();
      int expansion = buf.getInt();
      int n = buf.getInt();
      long items = buf.getLong();
      long deletes = buf.getLong();
      long writes = buf.getLong();
      int count = buf.getShort();
      check(count >= 1 && count <= FilterCore.MAX_SUB_FILTERS,
          "sub-filter count %s outside [1, %s]", count, FilterCore.MAX_SUB_FILTERS);
      int[] segments = new int[count];
      long[] tableItems = new long[count];
      for (int i = 0; i < count; i++) {
        segments[i] = buf.getInt();
        tableItems[i] = buf.getLong();
      }
      int crcAt = buf.position();
      int stored = buf.getInt();
      check(buf.remaining() == 0, "%s unexpected bytes after the header", buf.remaining());
      check(stored == crc(bytes, 0, crcAt), "header checksum mismatch: the dump is corrupt");
      check(HASH_SCHEME.equals(scheme), "hash scheme '%s' is not supported (expected '%s')", scheme, HASH_SCHEME);
      check(f >= 4 && f <= 16, "fingerprint bits %s outside [4, 16]", f);
      check(b == 2 || b == 4 || b == 8, "bucket size %s is not 2, 4 or 8", b);
      check(maxKicks >= 1 && maxKicks <= 65535, "max kicks %s outside [1, 65535]", maxKicks);
      check(expansion >= 0 && expansion <= 32768, "expansion %s outside [0, 32768]", expansion);
      check(n >= 2 && (n & 1) == 0, "bucket count %s must be even and >= 2", n);
      check(expansion > 0 || count == 1, "a fixed-size filter (expansion 0) has %s sub-filters", count);
      long expected = 1;
      long sumItems = 0;
      for (int i = 0; i < count; i++) {
        check(segments[i] == expected, "sub-filter %s has %s segments, expected %s", i, segments[i], expected);
        long words = Table.wordCountOrMinus1(f, b, n, segments[i]);
        check(words > 0, "sub-filter %s is larger than a Java array can hold", i);
        long slots = (long) n * segments[i] * b;
        check(tableItems[i] >= 0 && tableItems[i] <= slots,
            "sub-filter %s claims %s items in %s slots", i, tableItems[i], slots);
        sumItems += tableItems[i];
        expected *= expansion;
      }
      check(items == sumItems, "item count %s differs from the sub-filters' sum %s", items, sumItems);
      check(deletes >= 0, "deleted count %s is negative", deletes);
      check(writes >= 0, "write count %s is negative", writes);
      return new Header(scheme, funnel, seed, f, b, maxKicks, expansion, n, items, deletes, writes, segments,
          tableItems);
    } catch (BufferUnderflowException e) {
      throw new CorruptDumpException("truncated header (" + bytes.length + " bytes)");
    }
  }

  private static String string(ByteBuffer buf, int length) {
    byte[] s = new byte[length];
    buf.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  // ---- stream form ----

  public static void write(FilterCore core, String funnelId, OutputStream out) throws IOException {
    Table[] tables;
    long[][] words;
    long items;
    long deletes;
    byte[] header;
    // Snapshot under the writer lock, write without it.
    Object[] snap = core.locked(() -> {
      Table[] ts = core.tables();
      long[][] ws = new long[ts.length][];
      for (int i = 0; i < ts.length; i++) {
        ws[i] = ts[i].data.clone();
      }
      return new Object[] {ts, ws, header(core, ts, funnelId)};
    });
    tables = (Table[]) snap[0];
    words = (long[][]) snap[1];
    header = (byte[]) snap[2];
    DataOutputStream data = new DataOutputStream(out);
    data.write(header);
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocate(8 * 1024);
    for (long[] ws : words) {
      for (long w : ws) {
        if (!buf.hasRemaining()) {
          flush(buf, crc, data);
        }
        buf.putLong(w);
      }
    }
    flush(buf, crc, data);
    data.writeInt((int) crc.getValue());
    data.flush();
  }

  private static void flush(ByteBuffer buf, CRC32C crc, DataOutputStream out) throws IOException {
    crc.update(buf.array(), 0, buf.position());
    out.write(buf.array(), 0, buf.position());
    buf.clear();
  }

  /** Reads a filter written by {@link #write}; the funnel id is checked by the caller. */
  public static FilterCore read(InputStream in, String funnelId) throws IOException {
    DataInputStream data = new DataInputStream(in);
    try {
      byte[] head = readHeaderBytes(data);
      Header h = parseHeader(head);
      checkFunnel(h, funnelId);
      Table[] tables = new Table[h.segments.length];
      CRC32C crc = new CRC32C();
      byte[] buf = new byte[8 * 1024];
      for (int i = 0; i < tables.length; i++) {
        int total = (int) h.words(i);
        long[] words = null;
        int w = 0;
        while (w < total) {
          words = room(words, w + 1, total);
          int n = Math.min(buf.length / 8, words.length - w);
          data.readFully(buf, 0, n * 8);
          crc.update(buf, 0, n * 8);
          ByteBuffer bb = ByteBuffer.wrap(buf, 0, n * 8);
          for (int k = 0; k < n; k++) {
            words[w++] = bb.getLong();
          }
        }
        tables[i] = new Table(h.fingerprintBits, h.bucketSize, h.localBuckets, h.segments[i], h.maxKicks, words);
      }
      int stored = data.readInt();
      check(stored == (int) crc.getValue(), "data checksum mismatch: the dump is corrupt");
      return assemble(h, tables);
    } catch (EOFException e) {
      throw new CorruptDumpException("truncated dump: the stream ended early");
    }
  }

  private static byte[] readHeaderBytes(DataInputStream in) throws IOException {
    // The header's length depends on its variable parts; read them first.
    ByteBuffer fixed = ByteBuffer.allocate(6);
    in.readFully(fixed.array());
    int schemeLen = fixed.get(5) & 0xFF;
    byte[] scheme = new byte[schemeLen + 2];
    in.readFully(scheme);
    int funnelLen = ((scheme[schemeLen] & 0xFF) << 8) | (scheme[schemeLen + 1] & 0xFF);
    byte[] rest1 = new byte[funnelLen + 8 + 1 + 1 + 4 + 4 + 4 + 8 + 8 + 8 + 2];
    in.readFully(rest1);
    int count = ((rest1[rest1.length - 2] & 0xFF) << 8) | (rest1[rest1.length - 1] & 0xFF);
    if (count < 1 || count > FilterCore.MAX_SUB_FILTERS) {
      throw new CorruptDumpException("sub-filter count " + count + " outside [1, " + FilterCore.MAX_SUB_FILTERS + "]");
    }
    byte[] rest2 = new byte[count * 12 + 4];
    in.readFully(rest2);
    ByteBuffer all = ByteBuffer.allocate(6 + scheme.length + rest1.length + rest2.length);
    all.put(fixed.array()).put(scheme).put(rest1).put(rest2);
    return all.array();
  }

  static void checkFunnel(Header h, String funnelId) throws CorruptDumpException {
    if (!h.funnelId.equals(funnelId)) {
      throw new IllegalArgumentException("the dump was written with funnel '" + h.funnelId
          + "' but is read with funnel '" + funnelId + "'; read it with the funnel it was written with");
    }
  }

  static FilterCore assemble(Header h, Table[] tables) throws CorruptDumpException {
    long items = 0;
    for (int i = 0; i < tables.length; i++) {
      Table t = tables[i];
      check(TableAudit.paddingIsClear(t), "sub-filter %s has bits set past its last bucket: the dump is corrupt", i);
      long occupied = TableAudit.countOccupied(t);
      check(occupied == h.tableItems[i],
          "sub-filter %s holds %s fingerprints but its header says %s", i, occupied, h.tableItems[i]);
      t.items = occupied;
      items += occupied;
    }
    return new FilterCore(h.fingerprintBits, h.bucketSize, h.localBuckets, h.maxKicks, h.expansion, h.seed,
        tables, items, h.deletes, h.writes, Sizing.defaultMaxBytes());
  }

  // ---- chunked form ----

  /** The chunk for {@code cursor}: cursor 0 is the header; see the class comment. */
  public static ChunkBytes chunk(FilterCore core, String funnelId, long cursor) {
    return core.locked(() -> {
      Table[] ts = core.tables();
      if (cursor == 0) {
        return new ChunkBytes(1, header(core, ts, funnelId));
      }
      long offset = cursor - 1;
      long start = 0;
      for (int i = 0; i < ts.length; i++) {
        long words = ts[i].data.length;
        if (offset < start + words) {
          int first = (int) (offset - start);
          int count = (int) Math.min(MAX_CHUNK_WORDS, words - first);
          ByteBuffer buf = ByteBuffer.allocate(CHUNK_HEAD + count * 8 + 4);
          buf.putLong(core.seed).putLong(core.writesRaw());
          buf.putInt(i).putInt(first).putInt(count);
          for (int k = 0; k < count; k++) {
            buf.putLong(ts[i].data[first + k]);
          }
          buf.putInt(crc(buf.array(), 0, buf.position()));
          return new ChunkBytes(cursor + count, buf.array());
        }
        start += words;
      }
      return null;
    });
  }

  /** A chunk's next cursor and bytes. */
  public record ChunkBytes(long cursor, byte[] data) {}

  /** Accumulates chunks in order; produces a filter only when every chunk arrived intact. */
  public static final class Loader {
    private final String funnelId;
    private Header header;
    private long[][] words;
    private int table;
    private int word;
    private long globalWord;

    public Loader(String funnelId) {
      this.funnelId = funnelId;
    }

    public void load(long cursor, byte[] bytes) throws CorruptDumpException {
      if (header == null) {
        check(cursor == 1, "the first chunk must be the header (cursor 1), got cursor %s", cursor);
        Header h = parseHeader(bytes);
        checkFunnel(h, funnelId);
        header = h;
        words = new long[h.segments.length][];
        return;
      }
      check(table < words.length, "chunk at cursor %s arrived after the dump was complete", cursor);
      check(bytes.length >= CHUNK_HEAD + 4 && (bytes.length - CHUNK_HEAD - 4) % 8 == 0,
          "chunk of %s bytes is malformed", bytes.length);
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      long seed = buf.getLong();
      long writes = buf.getLong();
      int t = buf.getInt();
      int first = buf.getInt();
      int count = buf.getInt();
      check(buf.getInt(bytes.length - 4) == crc(bytes, 0, bytes.length - 4),
          "chunk checksum mismatch at cursor %s: the chunk is corrupt", cursor);
      check(seed == header.seed,
          "chunk at cursor %s belongs to the dump of another filter (seed %s, this dump's header has %s):"
              + " load the chunks of one dump only", cursor, seed, header.seed);
      check(writes == header.writes,
          "chunk at cursor %s was taken after the filter changed (%s writes, %s when the header was"
              + " taken): a scan dump is a snapshot only while nothing writes to the filter. Dump it again"
              + " from cursor 0 while no writer runs, or use writeTo for a consistent copy of a live filter",
          cursor, writes, header.writes);
      check(t == table && first == word,
          "chunk out of order: got sub-filter %s word %s, expected sub-filter %s word %s", t, first, table, word);
      long total = header.words(t);
      check(count > 0 && count == (bytes.length - CHUNK_HEAD - 4) / 8 && first + (long) count <= total,
          "chunk word count %s does not fit sub-filter %s", count, t);
      check(cursor == 1 + globalWord + count,
          "cursor %s does not match the chunk (expected %s)", cursor, 1 + globalWord + count);
      long[] dst = room(words[t], first + (long) count, total);
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
      check(table == words.length, "the dump is incomplete: %s of %s words loaded", globalWord, header.totalWords());
      Table[] tables = new Table[words.length];
      for (int i = 0; i < tables.length; i++) {
        tables[i] = new Table(header.fingerprintBits, header.bucketSize, header.localBuckets,
            header.segments[i], header.maxKicks, words[i]);
      }
      // every chunk carried the header's write count: one snapshot, whose counts must agree
      return assemble(header, tables);
    }
  }

  // ---- helpers ----

  /**
   * {@code words} (null: none yet) with room for at least {@code needed} of a sub-filter's
   * {@code total} words: {@link #EAGER_WORDS} at first, then doubling, never more than total.
   */
  private static long[] room(long @Nullable [] words, long needed, long total) {
    if (words != null && words.length >= needed) {
      return words;
    }
    long size = Math.min(total, Math.max(needed, words == null ? EAGER_WORDS : 2L * words.length));
    return words == null ? new long[(int) size] : Arrays.copyOf(words, (int) size);
  }

  static int crc(byte[] bytes, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }

  static void check(boolean ok, String message, Object... args) throws CorruptDumpException {
    if (!ok) {
      throw new CorruptDumpException(String.format(message, args));
    }
  }

  /** A dump that cannot be read back: corrupt, truncated, out of order or of another version. */
  public static final class CorruptDumpException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptDumpException(String message) {
      super(message);
    }
  }
}
