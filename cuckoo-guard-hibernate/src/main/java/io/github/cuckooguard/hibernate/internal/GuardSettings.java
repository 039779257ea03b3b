package io.github.cuckooguard.hibernate.internal;

import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_ENABLED;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_EXPECTED_INSERTIONS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.DEFAULT_SCAN_FETCH_SIZE;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENABLED;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.ENTITIES;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.EXPECTED_INSERTIONS;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.PREFIX;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.REBUILD_LOAD_THRESHOLD;
import static io.github.cuckooguard.hibernate.CuckooGuardSettings.SCAN_FETCH_SIZE;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The {@code hibernate.cuckoo.*} settings, parsed and validated once per session factory: the guard
 * settings through the core's {@link GuardSpec#parse} (which rejects unknown names under the
 * prefix), the integration's own three here.
 *
 * @param enabled the master switch
 * @param entities entity names or class names listed in the settings
 * @param spec the guard settings every guarded entity starts from
 * @param scanFetchSize JDBC fetch size of the id scan
 */
public record GuardSettings(
    boolean enabled, Set<String> entities, GuardSpec spec, int scanFetchSize) {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.hibernate");

  /** The integration's own names after the prefix, as {@link GuardSpec#parse} lists them. */
  private static final Set<String> OWN_NAMES = Set.of("enabled", "entities", "scan-fetch-size");

  /** Old names (canonical form) and the settings that replaced them. */
  private static final Map<String, String> RENAMED =
      Map.of(
          "expectedrows", EXPECTED_INSERTIONS,
          "rebuildthreshold", REBUILD_LOAD_THRESHOLD);

  /**
   * Reads the settings from Hibernate's configuration map.
   *
   * @throws IllegalArgumentException naming the setting, the value and what is accepted: a
   *     malformed or out-of-range value, an unknown name under {@code hibernate.cuckoo.}, or one
   *     setting given under two spellings
   */
  public static GuardSettings from(Map<String, ?> settings) {
    Map<String, Object> mine = new LinkedHashMap<>();
    Map<String, String> spelledAs = new HashMap<>();
    for (Map.Entry<String, ?> e : settings.entrySet()) {
      String key = e.getKey();
      if (key == null || !key.startsWith(PREFIX) || e.getValue() == null) {
        continue;
      }
      if (key.startsWith(CuckooGuardSettings.CLUSTER_PREFIX)) {
        continue; // ClusterSettings reads these
      }
      String renamed = RENAMED.get(canonical(key.substring(PREFIX.length())));
      if (renamed != null) {
        LOGGER.log(
            Level.WARNING, "Cuckoo guard: setting " + key + " is deprecated; use " + renamed);
        key = renamed;
      }
      String earlier = spelledAs.putIfAbsent(canonical(key), e.getKey());
      if (earlier != null) {
        throw new IllegalArgumentException(
            "settings " + earlier + " and " + e.getKey() + " name the same setting; keep one");
      }
      mine.put(key, e.getValue());
    }
    if (!spelledAs.containsKey(canonical(EXPECTED_INSERTIONS))) {
      mine.put(EXPECTED_INSERTIONS, DEFAULT_EXPECTED_INSERTIONS);
    }
    GuardSpec spec = GuardSpec.parse(mine, PREFIX, OWN_NAMES);
    boolean enabled = parseBoolean(own(mine, ENABLED), DEFAULT_ENABLED);
    Set<String> entities = parseNames(own(mine, ENTITIES));
    int fetchSize = parseFetchSize(own(mine, SCAN_FETCH_SIZE));
    return new GuardSettings(enabled, entities, spec, fetchSize);
  }

  /**
   * The guard settings of one entity: {@code base} with the capacity and fpp of its annotation,
   * where they are not 0.
   *
   * @param where names the annotation in the error message
   * @throws IllegalArgumentException naming {@code where}, the value and the accepted range
   */
  static GuardSpec withOverrides(
      GuardSpec base, long expectedInsertions, double fpp, String where) {
    if (expectedInsertions == 0 && fpp == 0) {
      return base;
    }
    try {
      GuardSpec.Builder b =
          GuardSpec.newBuilder()
              .expectedInsertions(
                  expectedInsertions != 0 ? expectedInsertions : base.expectedInsertions())
              .expansion(base.expansion())
              .rebuildLoadThreshold(base.rebuildLoadThreshold())
              .fppDriftFactor(base.fppDriftFactor());
      if (fpp != 0) {
        b.fpp(fpp);
      } else if (base.fpp() > 0) {
        b.fpp(base.fpp());
      } else if (base.fingerprintBits() > 0) {
        b.fingerprintBits(base.fingerprintBits());
      }
      if (base.seed() != null) {
        b.seed(base.seed());
      }
      return b.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static @Nullable Object own(Map<String, Object> mine, String setting) {
    String wanted = canonical(setting);
    for (Map.Entry<String, Object> e : mine.entrySet()) {
      if (canonical(e.getKey()).equals(wanted)) {
        return e.getValue();
      }
    }
    return null;
  }

  private static String canonical(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  private static boolean parseBoolean(@Nullable Object value, boolean fallback) {
    if (value == null) {
      return fallback;
    }
    String text = value.toString().trim();
    if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(text);
    }
    throw new IllegalArgumentException(
        "setting " + ENABLED + " = '" + text + "' is not a boolean: use true or false");
  }

  private static int parseFetchSize(@Nullable Object value) {
    if (value == null) {
      return DEFAULT_SCAN_FETCH_SIZE;
    }
    String text = value.toString().trim().replace("_", "");
    long size;
    try {
      size = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting "
              + SCAN_FETCH_SIZE
              + " = '"
              + value
              + "' is not a whole number (default "
              + DEFAULT_SCAN_FETCH_SIZE
              + ")",
          e);
    }
    if (size < 1 || size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "setting "
              + SCAN_FETCH_SIZE
              + " = "
              + size
              + " is out of range: it must be between 1 and "
              + Integer.MAX_VALUE
              + " (default "
              + DEFAULT_SCAN_FETCH_SIZE
              + ")");
    }
    return (int) size;
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
