package io.github.cuckooguard.internal;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.cuckooguard.CorruptDumpException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The binary form of a filter, shared by {@code writeTo}/{@code readFrom} (one stream, {@link
 * StreamDump}) and {@code scanDump}/{@code loadChunk} (bounded chunks, {@link ChunkDump} and {@link
 * ChunkAssembler}); the header is {@link DumpHeader}. All integers big-endian.
 *
 * <pre>
 * Header (also the first chunk of a scan dump)
 *   int    magic 0x434B4746 ("CKGF")
 *   byte   format version (5 for a semi-sorted filter, 4 for a plain one; 3 is read too, see
 *          below)
 *   byte   length, then UTF-8 bytes: hash scheme ("xxh3-64")
 *   short  length, then UTF-8 bytes: funnel id (see Funnel.id(); at most 255 bytes)
 *   long   seed
 *   byte   fingerprint bits f of the first sub-filter (4..16)
 *   byte   bucket size b (2, 4 or 8)
 *   int    max kicks
 *   int    expansion
 *   int    buckets per segment n (even)
 *   long   items stored
 *   long   items deleted
 *   long   writes: successful adds, removes and growths of the filter so far
 *   long   dump id: random, one per dumped state (DumpIdentity)
 *   long   body digest: XXH3-64 (seed 0) of all body words, each as 8 little-endian bytes
 *   byte   growth bits g (f+1..32): the width of the first sub-filter growth adds; sub-filter
 *          t &gt;= 1 that this filter appends gets min(32, g + t − 1) bits (Sizing.growthBits)
 *   byte   (version 5 only) bucket layout: 1 semi-sorted (SemiSortedBuckets: the sub-filters of
 *          4-slot buckets and at most 16-bit fingerprints take 4·(f − 1) bits per bucket, wider
 *          ones the plain layout), 0 plain; versions 3 and 4 are plain
 *   short  sub-filter count t (1..32)
 *   t ×    (int segments, long items, byte fingerprint bits)
 *          segments of sub-filter i must be expansion^i; bits of sub-filter 0 must be f, and no
 *          sub-filter's may be fewer than an older one's (at most 32)
 *   int    CRC32C of all header bytes before it
 *
 * Stream body (writeTo): the words of each sub-filter in order (as many as the header implies,
 *   which depends on the layout),
 *   then int CRC32C of the body bytes. Nothing follows; a reader stops there.
 * Chunk body (scanDump cursor c &gt;= 1): long dump id, long seed, long writes (as at the time of
 *   the chunk), int sub-filter, int first word, int word count, the words, int CRC32C of the
 *   chunk's bytes before it. Cursor c addresses global word c − 1; a chunk is returned with cursor
 *   1 + (global first word) + (word count); chunks never span sub-filters.
 * </pre>
 *
 * A reader checks every field against its range, the checksums, that unused padding bits are zero,
 * that the stored item counts equal the occupied slots, and that the body's digest is the header's.
 * A loader of chunks also checks that every chunk carries the header's dump id (and seed and write
 * count, to say which mistake it was): a chunk of another filter, or one taken after the filter
 * changed, would otherwise load silently, and a fingerprint that a kick moved from a not-yet-dumped
 * bucket into an already-dumped one would be lost (a false negative). The digest binds the body to
 * the header as a whole: a header spliced onto the body of another dump (a torn overwrite) is
 * refused even where every per-sub-filter count agrees. Versions 1 and 2 (before the dump id and
 * digest) are refused with a message saying so. Version 3 (no growth bits, no per-sub-filter bits:
 * every sub-filter has f-bit fingerprints) is read as such; the sub-filters a filter read from it
 * appends get the widths this build gives a filter of f-bit fingerprints. A newer version is
 * refused by name. A plain filter is written as version 4 and a semi-sorted one as version 5, so a
 * build that reads only version 4 refuses a semi-sorted dump by its version instead of reading its
 * words as plain buckets; a reader of version 5 takes the layout from the header, never from its
 * caller, so a dump is always read in the layout it was written in.
 *
 * <p>No false negative through a dump: a dump is taken under the writer lock (the stream form in
 * one piece; each chunk on its own, all tied to one state by the id), so its body is one state of
 * the source filter, in which every resident key's fingerprint is in one of its buckets. A read or
 * load that completes has checked that it holds exactly that body (the digest) under that header
 * (checksums, counts), so the filter built from it answers as that state did.
 *
 * <p>Every refusal is a {@link CorruptDumpException}; a dump of another funnel is an {@link
 * IllegalArgumentException} (the caller passed the wrong funnel; the dump is fine).
 */
public final class DumpFormat {

  public static final int MAGIC = 0x434B4746;
  public static final int VERSION = 5;
  public static final String HASH_SCHEME = "xxh3-64";

  /** Longest funnel id a dump holds, in UTF-8 bytes. */
  public static final int MAX_FUNNEL_ID_BYTES = 255;

  /**
   * Words of a sub-filter allocated before its data arrives; larger tables grow (doubling) as it
   * does, so a header that declares a huge table (a corrupt or crafted dump whose checksum holds)
   * costs memory only for the bytes really supplied, not the gigabytes it claims. 8 Mi words = 64
   * MiB: a filter of up to ~33 M keys at 16 bits is read with one allocation per sub-filter.
   */
  private static final int EAGER_WORDS = 1 << 23;

  /** Words per scan-dump chunk at most: 8 MiB of fingerprints. */
  public static final int MAX_CHUNK_WORDS = 1 << 20;

  private DumpFormat() {}

  /** Writes the stream form; see {@link StreamDump}. */
  public static void write(FilterCore core, String funnelId, OutputStream out) throws IOException {
    StreamDump.write(core, funnelId, out);
  }

  /** Reads the stream form; see {@link StreamDump}. */
  public static FilterCore read(InputStream in, String funnelId) throws IOException {
    return StreamDump.read(in, funnelId);
  }

  /**
   * The UTF-8 bytes of a funnel id, checked against {@link #MAX_FUNNEL_ID_BYTES}; the builders and
   * readers call it first, so a writer never meets an id it cannot store.
   *
   * @throws IllegalArgumentException naming the id's length and the limit
   */
  public static byte[] funnelIdBytes(String funnelId) {
    byte[] bytes = funnelId.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_FUNNEL_ID_BYTES) {
      throw new IllegalArgumentException(
          "funnel id ("
              + bytes.length
              + " UTF-8 bytes, starting '"
              + funnelId.substring(0, Math.min(40, funnelId.length()))
              + "') must be at most "
              + MAX_FUNNEL_ID_BYTES
              + " bytes; give the funnel a short stable id()");
    }
    return bytes;
  }

  // ---- shared by the readers ----

  static void checkFunnel(DumpHeader h, String funnelId) {
    if (!h.funnelId().equals(funnelId)) {
      throw new IllegalArgumentException(
          "the dump was written with funnel '"
              + h.funnelId()
              + "' but is read with funnel '"
              + funnelId
              + "'; read it with the funnel it was written with");
    }
  }

  static void checkDigest(DumpHeader h, long digest) throws CorruptDumpException {
    check(
        digest == h.bodyDigest(),
        "body digest %016x differs from the header's %016x: the body is not the one this header was written"
            + " with (parts of different dumps, or a dump overwritten in place)",
        digest,
        h.bodyDigest());
  }

  /** Validates loaded tables against the header and makes the filter. */
  static FilterCore assemble(DumpHeader h, Table[] tables) throws CorruptDumpException {
    long items = 0;
    long bytes = 0;
    for (int i = 0; i < tables.length; i++) {
      Table t = tables[i];
      check(
          TableAudit.paddingIsClear(t),
          "sub-filter %s has bits set past its last bucket: the dump is corrupt",
          i);
      long occupied = TableAudit.countOccupied(t);
      check(
          occupied == h.tableItems()[i],
          "sub-filter %s holds %s fingerprints but its header says %s",
          i,
          occupied,
          h.tableItems()[i]);
      t.items = occupied;
      items += occupied;
      bytes += t.bytes();
    }
    // A loaded filter may grow within this JVM's default bound, and is never refused for the
    // memory it already occupies.
    return new FilterCore(
        h.fingerprintBits(),
        h.bucketSize(),
        h.localBuckets(),
        h.maxKicks(),
        h.expansion(),
        h.growthBits(),
        h.seed(),
        tables,
        items,
        h.deletes(),
        h.writes(),
        Math.max(bytes, Sizing.defaultMaxBytes()),
        h.semiSorted());
  }

  static HashStream64 digestStream() {
    return Hashing.xxh3_64().hashStream();
  }

  /** The body digest of {@code tables} (see the layout). */
  static long digest(Table[] tables) {
    HashStream64 s = digestStream();
    for (Table t : tables) {
      s.putLongs(t.data);
    }
    return s.getAsLong();
  }

  /** The body digest of loaded words, one array per sub-filter, each complete. */
  static long digest(long[][] words) {
    HashStream64 s = digestStream();
    for (long[] w : words) {
      s.putLongs(w);
    }
    return s.getAsLong();
  }

  /**
   * {@code words} (null: none yet) with room for at least {@code needed} of a sub-filter's {@code
   * total} words: {@link #EAGER_WORDS} at first, then doubling, never more than total.
   */
  static long[] room(long @Nullable [] words, long needed, long total) {
    if (words != null && words.length >= needed) {
      return words;
    }
    long size = Math.min(total, Math.max(needed, words == null ? EAGER_WORDS : 2L * words.length));
    return words == null ? new long[(int) size] : Arrays.copyOf(words, (int) size);
  }

  static int crc(byte[] bytes, int from, int to) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }

  static void check(boolean ok, String message, Object... args) throws CorruptDumpException {
    if (!ok) {
      throw new CorruptDumpException(String.format(message, args));
    }
  }
}
