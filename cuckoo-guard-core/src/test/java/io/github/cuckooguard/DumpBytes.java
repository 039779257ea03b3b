package io.github.cuckooguard;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads and rewrites the documented dump layout (see {@code internal.DumpFormat}) so that tests can
 * build dumps whose checksums are valid but whose fields are not: every range check of the reader
 * is then reached, not only the checksum.
 */
final class DumpBytes {

  private final byte[] bytes;
  private final int seedAt;
  private final int subFilters;
  private final int headerCrcAt;

  DumpBytes(byte[] dump) {
    this.bytes = dump.clone();
    int schemeLength = bytes[5] & 0xFF;
    int funnelAt = 6 + schemeLength;
    int funnelLength = ByteBuffer.wrap(bytes, funnelAt, 2).getShort() & 0xFFFF;
    this.seedAt = funnelAt + 2 + funnelLength;
    this.subFilters = ByteBuffer.wrap(bytes, at("subFilterCount"), 2).getShort();
    this.headerCrcAt = at("subFilterCount") + 2 + subFilters * 13;
  }

  /** Offset of a header field by its name in the documented layout. */
  int at(String field) {
    return switch (field) {
      case "magic" -> 0;
      case "version" -> 4;
      case "schemeLength" -> 5;
      case "scheme" -> 6;
      case "seed" -> seedAt;
      case "fingerprintBits" -> seedAt + 8;
      case "bucketSize" -> seedAt + 9;
      case "maxKicks" -> seedAt + 10;
      case "expansion" -> seedAt + 14;
      case "buckets" -> seedAt + 18;
      case "items" -> seedAt + 22;
      case "deletes" -> seedAt + 30;
      case "writes" -> seedAt + 38;
      case "dumpId" -> seedAt + 46;
      case "digest" -> seedAt + 54;
      case "growthBits" -> seedAt + 62;
      case "layout" -> {
        if (bytes[4] < 5) {
          throw new IllegalArgumentException("version " + bytes[4] + " has no layout byte");
        }
        yield seedAt + 63;
      }
      case "subFilterCount" -> seedAt + 63 + (bytes[4] >= 5 ? 1 : 0);
      default -> throw new IllegalArgumentException(field);
    };
  }

  /**
   * Offset of sub-filter {@code i}'s segment count (its item count follows, 8 bytes, then its
   * fingerprint bits, 1 byte).
   */
  int segmentsAt(int i) {
    return at("subFilterCount") + 2 + 13 * i;
  }

  /** Offset of sub-filter {@code i}'s fingerprint bits. */
  int tableBitsAt(int i) {
    return segmentsAt(i) + 12;
  }

  long longAt(String field) {
    return ByteBuffer.wrap(bytes).getLong(at(field));
  }

  int headerLength() {
    return headerCrcAt + 4;
  }

  /**
   * Writes {@code width} big-endian bytes of {@code value} at {@code offset}, then fixes both
   * checksums.
   */
  DumpBytes set(int offset, int width, long value) {
    for (int i = width - 1; i >= 0; i--) {
      bytes[offset + i] = (byte) value;
      value >>>= 8;
    }
    return resealed();
  }

  /**
   * Overwrites body word {@code index} (counting over all sub-filters) and fixes the data checksum.
   */
  DumpBytes setWord(int index, long value) {
    ByteBuffer.wrap(bytes).putLong(headerLength() + 8 * index, value);
    return resealed();
  }

  long word(int index) {
    return ByteBuffer.wrap(bytes).getLong(headerLength() + 8 * index);
  }

  int words() {
    return (bytes.length - headerLength() - 4) / 8;
  }

  /** Fixes the body digest, then both checksums: only the changed field is wrong. */
  private DumpBytes resealed() {
    ByteBuffer.wrap(bytes).putLong(at("digest"), digest(bytes, headerLength(), bytes.length - 4));
    return checksummed();
  }

  /**
   * Fixes both checksums but not the digest: what a splice of two dumps looks like when each part
   * came through intact (a torn overwrite), so only the dump's identity can catch it.
   */
  DumpBytes checksummed() {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    buf.putInt(headerCrcAt, crc(bytes, 0, headerCrcAt));
    buf.putInt(bytes.length - 4, crc(bytes, headerLength(), bytes.length - 4));
    return this;
  }

  /** The documented body digest: XXH3-64 of the body words, each as 8 little-endian bytes. */
  static long digest(byte[] b, int from, int to) {
    HashStream64 s = Hashing.xxh3_64().hashStream();
    ByteBuffer buf = ByteBuffer.wrap(b, from, to - from);
    while (buf.hasRemaining()) {
      s.putLong(buf.getLong());
    }
    return s.getAsLong();
  }

  /** This dump's header followed by {@code other}'s body and body checksum. */
  static byte[] splice(byte[] header, byte[] other) {
    DumpBytes h = new DumpBytes(header);
    DumpBytes o = new DumpBytes(other);
    byte[] out = Arrays.copyOf(header, h.headerLength() + other.length - o.headerLength());
    System.arraycopy(
        other, o.headerLength(), out, h.headerLength(), other.length - o.headerLength());
    return out;
  }

  byte[] bytes() {
    return bytes.clone();
  }

  LongCuckooFilter read() throws IOException {
    return LongCuckooFilter.readFrom(new ByteArrayInputStream(bytes));
  }

  static int crc(byte[] b, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(b, from, to - from);
    return (int) crc.getValue();
  }

  /**
   * The dump's bytes with the dump id and the header checksum over it zeroed: what two filters in
   * the same state have in common (the id is drawn per instance and state, so two instances never
   * share it).
   */
  static byte[] state(byte[] dump) {
    DumpBytes d = new DumpBytes(dump);
    byte[] b = d.bytes;
    Arrays.fill(b, d.at("dumpId"), d.at("dumpId") + 8, (byte) 0);
    Arrays.fill(b, d.headerCrcAt, d.headerCrcAt + 4, (byte) 0);
    return b;
  }

  /** {@link #state(byte[])} of {@code filter}'s {@code writeTo} bytes. */
  static byte[] state(AbstractCuckooFilter filter) {
    return state(FilterSubject.dump(filter));
  }

  /** Loads {@code chunks} in order and completes. */
  static <F extends AbstractCuckooFilter> F load(ChunkLoader<F> loader, List<DumpChunk> chunks)
      throws CorruptDumpException {
    for (DumpChunk c : chunks) {
      loader.loadChunk(c);
    }
    return loader.complete();
  }

  /** Every chunk of {@code filter}'s scan dump, header first, without the end marker. */
  static List<DumpChunk> chunks(AbstractCuckooFilter filter) {
    List<DumpChunk> chunks = new ArrayList<>();
    for (DumpChunk c = filter.scanDump(0); !c.isEnd(); c = filter.scanDump(c.cursor())) {
      chunks.add(c);
    }
    return chunks;
  }
}
