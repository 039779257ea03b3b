package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.DumpFormat.check;

import com.dynatrace.hash4j.hashing.HashStream64;
import io.github.cuckooguard.CorruptDumpException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The stream form ({@code writeTo}/{@code readFrom}): header, the words of every sub-filter, the
 * body's CRC32C (layout in {@link DumpFormat}). The reader consumes exactly one dump and leaves the
 * stream just after it: bytes that follow are not read, so dumps can be concatenated (and a file
 * holding more than one dump is not refused; the first is read).
 */
final class StreamDump {

  private StreamDump() {}

  static void write(FilterCore core, String funnelId, OutputStream out) throws IOException {
    // Snapshot under the writer lock, write without it.
    Object[] snap =
        core.locked(
            () -> {
              Table[] ts = core.tables();
              long[][] ws = new long[ts.length][];
              for (int i = 0; i < ts.length; i++) {
                ws[i] = ts[i].data.clone();
              }
              return new Object[] {ws, DumpHeader.encode(core, ts, funnelId, core.dumpIdentity())};
            });
    long[][] words = (long[][]) snap[0];
    byte[] header = (byte[]) snap[1];
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

  /**
   * Reads a filter written by {@link #write}. Refuses, with {@link CorruptDumpException}, a
   * truncated or corrupt dump, and one whose body is not the body the header was written with (its
   * digest differs), which is how a header spliced onto another dump's body is caught.
   */
  static FilterCore read(InputStream in, String funnelId) throws IOException {
    DataInputStream data = new DataInputStream(in);
    try {
      DumpHeader h = DumpHeader.parse(DumpHeader.read(data));
      DumpFormat.checkFunnel(h, funnelId);
      Table[] tables = new Table[h.segments().length];
      CRC32C crc = new CRC32C();
      HashStream64 digest = DumpFormat.digestStream();
      byte[] buf = new byte[8 * 1024];
      for (int i = 0; i < tables.length; i++) {
        int total = (int) h.words(i);
        long[] words = null;
        int w = 0;
        while (w < total) {
          words = DumpFormat.room(words, w + 1, total);
          int n = Math.min(buf.length / 8, words.length - w);
          data.readFully(buf, 0, n * 8);
          crc.update(buf, 0, n * 8);
          ByteBuffer bb = ByteBuffer.wrap(buf, 0, n * 8);
          for (int k = 0; k < n; k++) {
            words[w++] = bb.getLong();
          }
          digest.putLongs(words, w - n, n);
        }
        tables[i] = h.table(i, words);
      }
      int stored = data.readInt();
      check(stored == (int) crc.getValue(), "data checksum mismatch: the dump is corrupt");
      DumpFormat.checkDigest(h, digest.getAsLong());
      return DumpFormat.assemble(h, tables);
    } catch (EOFException e) {
      throw new CorruptDumpException("truncated dump: the stream ended early");
    }
  }
}
