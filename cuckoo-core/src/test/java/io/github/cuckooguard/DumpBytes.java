package io.github.cuckooguard;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads and rewrites the documented dump layout (see {@code internal.DumpFormat}) so that tests
 * can build dumps whose checksums are valid but whose fields are not: every range check of the
 * reader is then reached, not only the checksum.
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
    this.headerCrcAt = at("subFilterCount") + 2 + subFilters * 12;
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
      case "subFilterCount" -> seedAt + 46;
      default -> throw new IllegalArgumentException(field);
    };
  }

  /** Offset of sub-filter {@code i}'s segment count (its item count follows, 8 bytes). */
  int segmentsAt(int i) {
    return at("subFilterCount") + 2 + 12 * i;
  }

  int headerLength() {
    return headerCrcAt + 4;
  }

  /** Writes {@code width} big-endian bytes of {@code value} at {@code offset}, then fixes both checksums. */
  DumpBytes set(int offset, int width, long value) {
    for (int i = width - 1; i >= 0; i--) {
      bytes[offset + i] = (byte) value;
      value >>>= 8;
    }
    return resealed();
  }

  /** Overwrites body word {@code index} (counting over all sub-filters) and fixes the data checksum. */
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

  private DumpBytes resealed() {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    buf.putInt(headerCrcAt, crc(bytes, 0, headerCrcAt));
    buf.putInt(bytes.length - 4, crc(bytes, headerLength(), bytes.length - 4));
    return this;
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

  /** Every chunk of {@code filter}'s scan dump, header first, without the end marker. */
  static List<DumpChunk> chunks(AbstractCuckooFilter filter) {
    List<DumpChunk> chunks = new ArrayList<>();
    for (DumpChunk c = filter.scanDump(0); !c.isEnd(); c = filter.scanDump(c.cursor())) {
      chunks.add(c);
    }
    return chunks;
  }
}
