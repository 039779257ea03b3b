package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shadow truth of the multi-process tests is read while writers append to it. A reader must
 * never return a key nobody wrote: ThreeProcessTest's checker counted "false negatives" for keys
 * such as 441400662 and 7755, the tails of lines {@code 3871380441400662;} and {@code
 * 3872479953027755;} that crossed a 4 KiB page boundary, read by {@code Files.readAllLines} as two
 * lines while the append was half visible (see {@link KeyFiles}).
 */
class KeyFilesTest {

  @TempDir Path dir;

  @Test
  void onlyLinesEndedByTheirNewlineAreKeys() throws IOException {
    List<Long> keys = new ArrayList<>();
    KeyFiles.addCompleteLines(
        "12;\n7\n\n3871380441400662;\n387138".getBytes(StandardCharsets.US_ASCII), keys, "bytes");
    assertThat(keys).containsExactly(12L, 7L, 3871380441400662L);
    assertThatThrownBy(
            () ->
                KeyFiles.addCompleteLines(
                    "12;\n\0\0\u00374;\n".getBytes(StandardCharsets.US_ASCII), keys, "bytes"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("line at byte 4 is not a key");
  }

  /**
   * What the kernel showed ThreeProcessTest's checker, replayed: the line {@code 3871380441400662;}
   * crossed a page boundary after {@code 387138}, and the reader met the end of the file there
   * before the rest was visible. Deterministic; fails with the former reader ({@code
   * Files.readAllLines}: a {@code BufferedReader} that returns {@code 387138} as a line at the end
   * of file, reads on, and returns {@code 0441400662;}: key 441400662).
   */
  @Test
  void anEndOfFileInTheMiddleOfAnAppendYieldsNoKeyThatWasNotWritten() throws IOException {
    byte[] before = "3871380441400661;\n387138".getBytes(StandardCharsets.US_ASCII);
    byte[] after = "0441400662;\n".getBytes(StandardCharsets.US_ASCII);
    InputStream halfVisible =
        new InputStream() { // the file as a reader saw it: EOF once, then the rest of the append
          private int pos;
          private boolean eofSeen;

          @Override
          public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
          }

          @Override
          public int read(byte[] b, int off, int len) {
            if (len == 0) {
              return 0;
            }
            if (pos < before.length) {
              int n = Math.min(len, before.length - pos);
              System.arraycopy(before, pos, b, off, n);
              pos += n;
              return n;
            }
            if (!eofSeen) {
              eofSeen = true;
              return -1;
            }
            int at = pos - before.length;
            if (at >= after.length) {
              return -1;
            }
            int n = Math.min(len, after.length - at);
            System.arraycopy(after, at, b, off, n);
            pos += n;
            return n;
          }
        };
    assertThat(KeyFiles.completeLines(halfVisible, "half-visible append"))
        .containsExactly(3871380441400661L);
  }

  /**
   * A writer appends key lines as WritingMember does (one {@code Files.writeString} per line, 18
   * bytes, so line 228 of a file crosses its first 4 KiB page boundary), moving to a fresh file
   * every 240 lines to keep the reads short; two readers read the current file again and again for
   * 8 s. Fails with {@code Files.readAllLines} in place of {@link KeyFiles#completeLines} (1 to 10
   * keys nobody wrote per run on this 2-core machine, 5 runs of 5).
   */
  @Test
  @Timeout(60)
  void readersBesideAnAppendingWriterReadNoKeyThatWasNotWritten() throws Exception {
    Set<Long> written = ConcurrentHashMap.newKeySet();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Path> current = new AtomicReference<>();
    long base = 3521L << 40; // as WritingMember's keys: 16 digits
    Thread writer =
        new Thread(
            () -> {
              long n = 0;
              try {
                for (int file = 0; !stop.get(); file++) {
                  Path f = dir.resolve("keys-" + file + ".txt");
                  Files.writeString(f, "", StandardCharsets.US_ASCII);
                  current.set(f);
                  for (int line = 0; line < 240 && !stop.get(); line++) {
                    long key = base + ++n;
                    written.add(key); // before the line: every key read was added first
                    Files.writeString(
                        f, key + ";\n", StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
                  }
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            "appender");
    writer.start();
    Set<Long> phantoms = ConcurrentHashMap.newKeySet();
    LongAdder reads = new LongAdder();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      readers.add(
          new Thread(
              () -> {
                try {
                  while (System.nanoTime() - until < 0) {
                    Path f = current.get();
                    if (f == null || !Files.exists(f)) {
                      continue;
                    }
                    for (long key : KeyFiles.completeLines(f)) {
                      if (!written.contains(key)) {
                        phantoms.add(key);
                      }
                    }
                    reads.increment();
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              "reader-" + r));
    }
    readers.forEach(Thread::start);
    for (Thread t : readers) {
      t.join(30_000);
    }
    stop.set(true);
    writer.join(10_000);
    String summary = reads + " reads, " + written.size() + " keys written";
    System.out.println("KeyFilesTest: " + summary);
    assertThat(written.size()).as(summary).isGreaterThan(5_000); // many page boundaries crossed
    assertThat(phantoms).as("keys read that nobody wrote; " + summary).isEmpty();
  }
}
