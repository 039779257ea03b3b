package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.DumpFormat.check;
import static io.github.cuckooguard.internal.DumpFormat.crc;

import io.github.cuckooguard.CorruptDumpException;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The header of a dump (layout in {@link DumpFormat}): everything needed to allocate the tables and
 * to tie the body to this dump.
 */
record DumpHeader(
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
    long dumpId,
    long bodyDigest,
    int growthBits,
    int[] segments,
    long[] tableItems,
    int[] tableBits,
    boolean semiSorted) {

  /** The version a plain filter is written in: builds that predate the layout byte read it. */
  static final int PLAIN_VERSION = 4;

  /** Layout byte (version 5) of a filter whose tables are laid out by PackedBuckets. */
  static final int LAYOUT_PLAIN = 0;

  /** Layout byte of a semi-sorted filter ({@link SemiSortedBuckets} where it applies). */
  static final int LAYOUT_SEMI_SORTED = 1;

  /**
   * Bytes of the fixed part after the funnel id, up to and including the sub-filter count, in
   * version 4 (version 3 lacks the growth-bits byte).
   */
  private static final int FIXED_TAIL = 8 + 1 + 1 + 4 + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 1 + 2;

  /** The oldest version this build reads: 3, whose sub-filters all have the first one's width. */
  static final int OLDEST_READABLE = 3;

  private static int fixedTail(int version) {
    return version >= 5 ? FIXED_TAIL + 1 : version >= 4 ? FIXED_TAIL : FIXED_TAIL - 1;
  }

  /** Bytes per sub-filter record: segments, items and (version 4) fingerprint bits. */
  private static int tableRecord(int version) {
    return version >= 4 ? 13 : 12;
  }

  long words(int table) {
    return Table.wordCount(
        Table.storedBits(tableBits[table], bucketSize, semiSorted),
        bucketSize,
        localBuckets,
        segments[table]);
  }

  /** An empty table {@code i} of this header's shape and layout around {@code words}. */
  Table table(int i, long[] words) {
    return new Table(
        tableBits[i],
        bucketSize,
        localBuckets,
        segments[i],
        maxKicks,
        words,
        fingerprintBits,
        semiSorted);
  }

  long totalWords() {
    long w = 0;
    for (int i = 0; i < segments.length; i++) {
      w += words(i);
    }
    return w;
  }

  /** The header of {@code core} with {@code tables}; call under the writer lock. */
  static byte[] encode(FilterCore core, Table[] tables, String funnelId, DumpIdentity identity) {
    byte[] scheme = DumpFormat.HASH_SCHEME.getBytes(StandardCharsets.UTF_8);
    byte[] funnel = DumpFormat.funnelIdBytes(funnelId);
    // A plain filter stays in version 4, which builds without the layout byte read; a semi-sorted
    // one is version 5, which they refuse by version (as written by a newer build), so no build
    // ever reads semi-sorted words as plain ones.
    int version = core.semiSorted() ? DumpFormat.VERSION : PLAIN_VERSION;
    ByteBuffer buf =
        ByteBuffer.allocate(
            4
                + 1
                + 1
                + scheme.length
                + 2
                + funnel.length
                + fixedTail(version)
                + tables.length * 13
                + 4);
    buf.putInt(DumpFormat.MAGIC).put((byte) version);
    buf.put((byte) scheme.length).put(scheme);
    buf.putShort((short) funnel.length).put(funnel);
    buf.putLong(core.seed).put((byte) core.fingerprintBits).put((byte) core.bucketSize);
    buf.putInt(core.maxKicks).putInt(core.expansion).putInt(core.localBuckets);
    buf.putLong(core.itemsRaw()).putLong(core.deletes()).putLong(core.writesRaw());
    buf.putLong(identity.id()).putLong(identity.digest());
    buf.put((byte) core.growthBits());
    if (version >= 5) {
      buf.put((byte) LAYOUT_SEMI_SORTED);
    }
    buf.putShort((short) tables.length);
    for (Table t : tables) {
      buf.putInt(t.segments).putLong(t.items).put((byte) t.fingerprintBits);
    }
    buf.putInt(crc(buf.array(), 0, buf.position()));
    return buf.array();
  }

  /**
   * Reads the header's bytes from a stream: magic and version first, so that a stream that is not a
   * dump, or a dump of another version (whose layout differs), is named as such instead of being
   * parsed with the wrong layout.
   */
  static byte[] read(DataInputStream in) throws IOException {
    byte[] fixed = new byte[6];
    in.readFully(fixed);
    int version = checkMagicAndVersion(ByteBuffer.wrap(fixed));
    int schemeLen = fixed[5] & 0xFF;
    byte[] scheme = new byte[schemeLen + 2];
    in.readFully(scheme);
    int funnelLen = ((scheme[schemeLen] & 0xFF) << 8) | (scheme[schemeLen + 1] & 0xFF);
    byte[] rest1 = new byte[funnelLen + fixedTail(version)];
    in.readFully(rest1);
    int count = ((rest1[rest1.length - 2] & 0xFF) << 8) | (rest1[rest1.length - 1] & 0xFF);
    check(
        count >= 1 && count <= FilterCore.MAX_SUB_FILTERS,
        "sub-filter count %s outside [1, %s]",
        count,
        FilterCore.MAX_SUB_FILTERS);
    byte[] rest2 = new byte[count * tableRecord(version) + 4];
    in.readFully(rest2);
    ByteBuffer all = ByteBuffer.allocate(6 + scheme.length + rest1.length + rest2.length);
    all.put(fixed).put(scheme).put(rest1).put(rest2);
    return all.array();
  }

  /** Checks magic and version; returns the version. */
  private static int checkMagicAndVersion(ByteBuffer buf) throws CorruptDumpException {
    int magic = buf.getInt();
    check(
        magic == DumpFormat.MAGIC,
        "not a cuckoo filter dump (magic %08x, expected %08x)",
        magic,
        DumpFormat.MAGIC);
    int version = buf.get();
    check(
        version >= OLDEST_READABLE && version <= DumpFormat.VERSION,
        "unsupported format version %s: this build reads versions %s to %s%s",
        version,
        OLDEST_READABLE,
        DumpFormat.VERSION,
        version >= 1 && version < OLDEST_READABLE
            ? "; versions 1 and 2 are pre-release formats without a dump identity"
                + " and a body digest, and cannot be read: dump the filter again with this build"
            : version > DumpFormat.VERSION
                ? "; it was written by a newer build: read it with that build or a later one"
                : "");
    return version;
  }

  /** Parses and validates a header; throws {@link CorruptDumpException} naming the bad field. */
  static DumpHeader parse(byte[] bytes) throws CorruptDumpException {
    try {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      int version = checkMagicAndVersion(buf);
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
      long dumpId = buf.getLong();
      long digest = buf.getLong();
      int growth = version >= 4 ? buf.get() : -1;
      int layout = version >= 5 ? buf.get() : LAYOUT_PLAIN;
      int count = buf.getShort();
      check(
          count >= 1 && count <= FilterCore.MAX_SUB_FILTERS,
          "sub-filter count %s outside [1, %s]",
          count,
          FilterCore.MAX_SUB_FILTERS);
      int[] segments = new int[count];
      long[] tableItems = new long[count];
      int[] tableBits = new int[count];
      for (int i = 0; i < count; i++) {
        segments[i] = buf.getInt();
        tableItems[i] = buf.getLong();
        tableBits[i] = version >= 4 ? buf.get() : f;
      }
      int crcAt = buf.position();
      int stored = buf.getInt();
      check(buf.remaining() == 0, "%s unexpected bytes after the header", buf.remaining());
      check(stored == crc(bytes, 0, crcAt), "header checksum mismatch: the dump is corrupt");
      check(
          DumpFormat.HASH_SCHEME.equals(scheme),
          "hash scheme '%s' is not supported (expected '%s')",
          scheme,
          DumpFormat.HASH_SCHEME);
      check(f >= 4 && f <= 16, "fingerprint bits %s outside [4, 16]", f);
      check(b == 2 || b == 4 || b == 8, "bucket size %s is not 2, 4 or 8", b);
      check(
          layout == LAYOUT_PLAIN || layout == LAYOUT_SEMI_SORTED,
          "bucket layout %s is neither %s (plain) nor %s (semi-sorted)",
          layout,
          LAYOUT_PLAIN,
          LAYOUT_SEMI_SORTED);
      boolean semiSorted = layout == LAYOUT_SEMI_SORTED;
      check(
          !semiSorted || b == SemiSortedBuckets.SLOTS,
          "a semi-sorted filter has bucket size %s, not %s",
          b,
          SemiSortedBuckets.SLOTS);
      check(maxKicks >= 1 && maxKicks <= 65535, "max kicks %s outside [1, 65535]", maxKicks);
      check(expansion >= 0 && expansion <= 32768, "expansion %s outside [0, 32768]", expansion);
      check(n >= 2 && (n & 1) == 0, "bucket count %s must be even and >= 2", n);
      if (version < 4) {
        // Version 3 grew at one width; its sub-filters keep it, and the ones this build adds
        // follow the widths it gives a filter of these fingerprints.
        growth = Sizing.growthBits(Sizing.fppAtDesignLoad(f, b), f, b);
      }
      check(
          growth > f && growth <= Sizing.MAX_BITS,
          "growth fingerprint bits %s outside [%s, %s]",
          growth,
          f + 1,
          Sizing.MAX_BITS);
      check(
          tableBits[0] == f,
          "sub-filter 0 has %s-bit fingerprints, the header says %s",
          tableBits[0],
          f);
      for (int i = 1; i < count; i++) {
        // Never narrower than an older sub-filter: removes across sub-filters rely on it
        // (FilterCore's class comment).
        check(
            tableBits[i] >= tableBits[i - 1] && tableBits[i] <= Sizing.MAX_BITS,
            "sub-filter %s has %s-bit fingerprints, outside [%s, %s] (never narrower than sub-filter"
                + " %s)",
            i,
            tableBits[i],
            tableBits[i - 1],
            Sizing.MAX_BITS,
            i - 1);
      }
      check(
          expansion > 0 || count == 1,
          "a fixed-size filter (expansion 0) has %s sub-filters",
          count);
      long expected = 1;
      long sumItems = 0;
      for (int i = 0; i < count; i++) {
        check(
            segments[i] == expected,
            "sub-filter %s has %s segments, expected %s",
            i,
            segments[i],
            expected);
        long words =
            Table.wordCountOrMinus1(
                Table.storedBits(tableBits[i], b, semiSorted), b, n, segments[i]);
        check(words > 0, "sub-filter %s is larger than a Java array can hold", i);
        long slots = (long) n * segments[i] * b;
        check(
            tableItems[i] >= 0 && tableItems[i] <= slots,
            "sub-filter %s claims %s items in %s slots",
            i,
            tableItems[i],
            slots);
        sumItems += tableItems[i];
        expected *= expansion;
      }
      check(
          items == sumItems, "item count %s differs from the sub-filters' sum %s", items, sumItems);
      check(deletes >= 0, "deleted count %s is negative", deletes);
      check(writes >= 0, "write count %s is negative", writes);
      return new DumpHeader(
          scheme,
          funnel,
          seed,
          f,
          b,
          maxKicks,
          expansion,
          n,
          items,
          deletes,
          writes,
          dumpId,
          digest,
          growth,
          segments,
          tableItems,
          tableBits,
          semiSorted);
    } catch (BufferUnderflowException e) {
      throw new CorruptDumpException("truncated header (" + bytes.length + " bytes)");
    }
  }

  private static String string(ByteBuffer buf, int length) {
    byte[] s = new byte[length];
    buf.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
