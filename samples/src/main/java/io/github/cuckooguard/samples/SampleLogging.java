package io.github.cuckooguard.samples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.logging.LogManager;

/** The logging of {@link Main}: warnings only, one line each. */
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
}
