package io.github.cuckooguard.caffeine.internal;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code Caffeine} builder is configured with, read from its {@code toString()} (Caffeine
 * has no public getters; its {@code toString} lists every setting that was set), and the refusals
 * of configurations the guard cannot keep exact. Checked before the guard touches the builder, so a
 * refused builder is left as it was.
 *
 * @param description the builder's {@code toString()}
 */
public record BuilderInspection(String description) {

  private static final Pattern MAXIMUM_SIZE = Pattern.compile("[{ ]maximumSize=(\\d+)[,}]");

  /** The {@code maximumSize}, if the builder is size-bounded. */
  public OptionalLong maximumSize() {
    Matcher m = MAXIMUM_SIZE.matcher(description);
    return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  private boolean has(String setting) {
    return description.contains("{" + setting) || description.contains(" " + setting);
  }

  /**
   * Refuses what cannot be guarded exactly.
   *
   * @param capacityGiven whether the guard builder has expectedInsertions
   * @param loading whether a loader is given
   * @throws IllegalArgumentException naming the setting, why, and what to do instead
   */
  public void check(boolean capacityGiven, boolean loading) {
    if (has("keyStrength=weak")) {
      throw new IllegalArgumentException(
          "Caffeine.weakKeys() cannot be guarded: when a key is garbage"
              + " collected Caffeine reports its eviction with a null key, so its fingerprint can never be"
              + " removed, and weak keys compare by identity while the filter hashes by value. Remove"
              + " weakKeys() from the builder ("
              + description
              + ")");
    }
    if (has("valueStrength=")) {
      throw new IllegalArgumentException(
          "Caffeine.weakValues()/softValues() cannot be guarded: an entry"
              + " whose value was collected is invisible to the key iteration a rebuild reads, yet its"
              + " COLLECTED eviction can arrive after the rebuilt filter is in use, where removing its"
              + " fingerprint could hide another key. Use strong values, bounded by maximumSize or"
              + " maximumWeight ("
              + description
              + ")");
    }
    if (has("evictionListener")) {
      throw new IllegalArgumentException(
          "The Caffeine builder already has an eviction listener. The"
              + " guard installs its own (evictions are how keys leave the filter, inside Caffeine's atomic"
              + " removal): pass yours to CaffeineGuard.newBuilder(funnel).evictionListener(listener), which"
              + " calls it after the guard's, and remove it from the Caffeine builder. A removalListener can"
              + " stay where it is ("
              + description
              + ")");
    }
    if (has("refreshAfterWrite=") && !loading) {
      throw new IllegalArgumentException(
          "refreshAfterWrite needs a loader: use"
              + " CaffeineGuard.wrap(builder, loader) ("
              + description
              + ")");
    }
    if (!capacityGiven && maximumSize().isEmpty()) {
      String bound =
          has("maximumWeight=")
              ? "is bounded by weight, not by a number of keys"
              : "has no maximumSize";
      throw new IllegalArgumentException(
          "Cannot size the filter: the cache "
              + bound
              + ". Set"
              + " CaffeineGuard.newBuilder(funnel).expectedInsertions(n) to the number of keys you expect"
              + " it to hold ("
              + description
              + ")");
    }
  }
}
