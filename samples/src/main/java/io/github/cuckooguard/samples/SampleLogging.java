package io.github.cuckooguard.samples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.LogManager;

/** Start-up plumbing of {@link Main}: quiet logging, and the arguments as Maven passes them. */
final class SampleLogging {

  private SampleLogging() {}

  /**
   * Reads {@code samples-logging.properties}: warnings only, so the libraries' start-up chatter
   * (Hibernate, Spring, Hazelcast all log through java.util.logging here) does not bury the
   * reports. Does nothing if {@code java.util.logging.config.file} is set.
   */
  static void configure() {
    if (System.getProperty("java.util.logging.config.file") != null) {
      return;
    }
    try (InputStream in = SampleLogging.class.getResourceAsStream("/samples-logging.properties")) {
      if (in != null) {
        LogManager.getLogManager().readConfiguration(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Splits arguments that arrive as one string with spaces (the Maven profile's -Dargs="db --rows 1000"). */
  static String[] splitArguments(String[] args) {
    List<String> words = new ArrayList<>();
    for (String arg : args) {
      for (String word : arg.trim().split("\\s+")) {
        if (!word.isEmpty()) {
          words.add(word);
        }
      }
    }
    return words.toArray(String[]::new);
  }
}
