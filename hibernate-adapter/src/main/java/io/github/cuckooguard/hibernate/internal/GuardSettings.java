package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_ENABLED;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_EXPECTED_ROWS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_FPP;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_REBUILD_THRESHOLD;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_SCAN_FETCH_SIZE;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENABLED;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENTITIES;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.EXPECTED_ROWS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.FPP;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.REBUILD_THRESHOLD;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.SCAN_FETCH_SIZE;

import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The {@code hibernate.cuckoo.*} settings, parsed and validated once per session factory.
 *
 * @param enabled the master switch
 * @param entities entity names or class names listed in the settings
 * @param expectedRows default initial size of a guard
 * @param fpp default target false-positive probability
 * @param rebuildThreshold load factor that triggers a background rebuild
 * @param scanFetchSize JDBC fetch size of the id scan
 */
public record GuardSettings(
    boolean enabled,
    Set<String> entities,
    long expectedRows,
    double fpp,
    double rebuildThreshold,
    int scanFetchSize) {

  /**
   * Reads the settings from Hibernate's configuration map.
   *
   * @throws IllegalArgumentException naming the setting, the value and the accepted range
   */
  public static GuardSettings from(Map<String, ?> settings) {
    boolean enabled = parseBoolean(settings.get(ENABLED), ENABLED, DEFAULT_ENABLED);
    Set<String> entities = parseNames(settings.get(ENTITIES));
    long expectedRows =
        checkExpectedRows(
            parseLong(settings.get(EXPECTED_ROWS), EXPECTED_ROWS, DEFAULT_EXPECTED_ROWS),
            "setting " + EXPECTED_ROWS);
    double fpp =
        checkFpp(parseDouble(settings.get(FPP), FPP, DEFAULT_FPP), "setting " + FPP);
    double threshold =
        parseDouble(settings.get(REBUILD_THRESHOLD), REBUILD_THRESHOLD, DEFAULT_REBUILD_THRESHOLD);
    if (!(threshold > 0.0 && threshold < 1.0)) {
      throw new IllegalArgumentException(
          "setting " + REBUILD_THRESHOLD + " = " + threshold
              + " is out of range: it must be > 0 and < 1 (a load factor; default "
              + DEFAULT_REBUILD_THRESHOLD + ")");
    }
    long fetchSize =
        parseLong(settings.get(SCAN_FETCH_SIZE), SCAN_FETCH_SIZE, DEFAULT_SCAN_FETCH_SIZE);
    if (fetchSize < 1 || fetchSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "setting " + SCAN_FETCH_SIZE + " = " + fetchSize
              + " is out of range: it must be between 1 and " + Integer.MAX_VALUE
              + " (default " + DEFAULT_SCAN_FETCH_SIZE + ")");
    }
    return new GuardSettings(enabled, entities, expectedRows, fpp, threshold, (int) fetchSize);
  }

  /**
   * Validates an expected row count.
   *
   * @param where names the source of the value in the error message
   * @throws IllegalArgumentException if the value is not positive
   */
  static long checkExpectedRows(long value, String where) {
    if (value < 1) {
      throw new IllegalArgumentException(
          where + ": expected rows = " + value
              + " is out of range: it must be at least 1 (default " + DEFAULT_EXPECTED_ROWS + ")");
    }
    return value;
  }

  /**
   * Validates a false-positive probability.
   *
   * @param where names the source of the value in the error message
   * @throws IllegalArgumentException if the value is not strictly between 0 and 1
   */
  static double checkFpp(double value, String where) {
    if (!(value > 0.0 && value < 1.0)) {
      throw new IllegalArgumentException(
          where + ": fpp = " + value
              + " is out of range: it must be > 0 and < 1, e.g. 0.01 for 1% (default "
              + DEFAULT_FPP + ")");
    }
    return value;
  }

  private static boolean parseBoolean(@Nullable Object value, String name, boolean fallback) {
    if (value == null) {
      return fallback;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    String text = value.toString().trim();
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    if (text.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(
        "setting " + name + " = '" + text + "' is not a boolean: use true or false");
  }

  private static long parseLong(@Nullable Object value, String name, long fallback) {
    if (value == null) {
      return fallback;
    }
    if (value instanceof Number n && !(value instanceof Double || value instanceof Float)) {
      return n.longValue();
    }
    String text = value.toString().trim().replace("_", "");
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + name + " = '" + value + "' is not a whole number (default " + fallback + ")",
          e);
    }
  }

  private static double parseDouble(@Nullable Object value, String name, double fallback) {
    if (value == null) {
      return fallback;
    }
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    try {
      return Double.parseDouble(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + name + " = '" + value + "' is not a number (default " + fallback + ")", e);
    }
  }

  private static Set<String> parseNames(@Nullable Object value) {
    if (value == null) {
      return Set.of();
    }
    Collection<?> parts =
        value instanceof Collection<?> c ? c : Arrays.asList(value.toString().split(","));
    return parts.stream()
        .map(part -> part.toString().trim())
        .filter(part -> !part.isEmpty())
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }
}
