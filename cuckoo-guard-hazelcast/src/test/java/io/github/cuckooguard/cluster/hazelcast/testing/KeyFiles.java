package io.github.cuckooguard.cluster.hazelcast.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the key files the multi-process tests use as their shadow truth ({@code KEY\n} or {@code
 * KEY;\n} per line, each line appended with one write by its writer) while writers append to them.
 *
 * <p>Why not {@code Files.readAllLines}: a write that crosses a 4 KiB page boundary becomes visible
 * to a concurrent reader in two steps (the file size grows to the boundary, then to the end of the
 * write). A {@code BufferedReader} that meets the end of the file in between returns the first part
 * as a last line and then, when asked for the next line, reads on and returns the rest as a line of
 * its own: {@code 3871380441400662;} read as {@code 387138} and {@code 0441400662;}, a well-formed
 * line for key 441400662, which nobody wrote (ThreeProcessTest's checkers counted such a key as a
 * false negative: "owner 0, local filter has it false"). Here the bytes are read in one pass from
 * the start until the first end of file (so no line break is ever inserted), and only lines ended
 * by their own {@code \n} count: a line still being written, or cut short by a kill, is not read.
 */
public final class KeyFiles {

  private KeyFiles() {}

  /**
   * The keys of the complete lines of every key file ({@code keys-*.txt}) in {@code dir}: the keys
   * present at the source when this was called.
   */
  public static List<Long> presentKeys(Path dir) throws IOException {
    List<Long> keys = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "keys-*.txt")) {
      for (Path file : files) {
        keys.addAll(completeLines(file));
      }
    }
    return keys;
  }

  /** The keys of the complete lines of {@code file}, in file order. */
  public static List<Long> completeLines(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return completeLines(in, file);
    }
  }

  /**
   * The keys of the complete lines in the bytes {@code in} yields up to its first end of file (a
   * file being appended to may report one in the middle of an append; what follows is not read).
   */
  public static List<Long> completeLines(InputStream in, Object where) throws IOException {
    List<Long> keys = new ArrayList<>();
    addCompleteLines(in.readAllBytes(), keys, where);
    return keys;
  }

  /**
   * Adds the key of every line of {@code bytes} that ends with {@code \n}; a trailing part without
   * one is ignored, and so are empty lines.
   *
   * @throws IOException if a complete line is not a key (digits, optionally followed by {@code ;})
   */
  public static void addCompleteLines(byte[] bytes, List<Long> keys, Object where)
      throws IOException {
    int start = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      if (i == start) { // an empty line
        start = i + 1;
        continue;
      }
      int end = bytes[i - 1] == ';' ? i - 1 : i;
      if (end == start || end - start > 18) {
        throw new IOException(
            where + ": line at byte " + start + " is not a key: " + text(bytes, start, i));
      }
      long key = 0;
      for (int j = start; j < end; j++) {
        int digit = bytes[j] - '0';
        if (digit < 0 || digit > 9) {
          throw new IOException(
              where + ": line at byte " + start + " is not a key: " + text(bytes, start, i));
        }
        key = key * 10 + digit;
      }
      keys.add(key);
      start = i + 1;
    }
  }

  private static String text(byte[] bytes, int from, int to) {
    return new String(bytes, from, Math.min(to - from, 40), StandardCharsets.US_ASCII);
  }
}
