package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The health of a context's guards, independent of the Actuator version: degraded while any guard
 * is pass-through (stale, warming up, or after a failed rebuild: lookups still answer correctly,
 * but every one reaches the store) or its last rebuild failed; the details per guard name its state
 * and, when degraded, the reason. The health indicators of the Boot lines report it.
 *
 * @param degraded whether any guard is degraded
 * @param details per guard name: kind, passThrough, rebuilding, size, loadFactor, rebuildFailures
 *     and, when degraded, reason
 */
public record GuardHealth(boolean degraded, Map<String, Map<String, Object>> details) {

  /** The health of {@code catalog}'s guards now. */
  public static GuardHealth of(GuardCatalog catalog) {
    boolean degraded = false;
    Map<String, Map<String, Object>> details = new LinkedHashMap<>();
    for (GuardView guard : catalog.guards().values()) {
      GuardStats stats = guard.stats();
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("kind", guard.kind().name().toLowerCase(Locale.ROOT));
      detail.put("passThrough", stats.passThrough());
      detail.put("rebuilding", stats.rebuilding());
      detail.put("size", stats.size());
      detail.put("loadFactor", stats.loadFactor());
      detail.put("rebuildFailures", stats.rebuildFailures());
      Throwable failure = stats.lastRebuildFailure();
      if (failure != null) {
        detail.put(
            "reason", "last rebuild failed (pass-through until a rebuild succeeds): " + failure);
        degraded = true;
      } else if (stats.passThrough()) {
        detail.put(
            "reason",
            stats.rebuilding()
                ? "pass-through while a rebuild runs (every lookup reaches the store)"
                : "pass-through (every lookup reaches the store) until the next rebuild");
        degraded = true;
      }
      details.put(guard.name(), detail);
    }
    return new GuardHealth(degraded, details);
  }
}
