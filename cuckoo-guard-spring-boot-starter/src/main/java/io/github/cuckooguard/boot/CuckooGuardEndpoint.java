package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code cuckooguard} Actuator endpoint: {@code GET /actuator/cuckooguard} gives the stats of
 * every guard, {@code GET /actuator/cuckooguard/{name}} one guard's, and {@code POST
 * /actuator/cuckooguard/{name}} with {@code {"action": "rebuild"}} or {@code {"action":
 * "markStale"}} requests a rebuild (returning at once; the rebuild runs on the guard's executor).
 * Like every endpoint it is exposed over HTTP only when listed in {@code
 * management.endpoints.web.exposure.include}. Thread-safe.
 */
@Endpoint(id = "cuckooguard")
public class CuckooGuardEndpoint {

  private final GuardCatalog catalog;

  /** The endpoint over {@code catalog}'s guards. */
  public CuckooGuardEndpoint(GuardCatalog catalog) {
    this.catalog = catalog;
  }

  /** The stats of every guard, by name. */
  @ReadOperation
  public Map<String, Map<String, Object>> guards() {
    Map<String, Map<String, Object>> all = new LinkedHashMap<>();
    catalog.guards().values().forEach(g -> all.put(g.name(), describe(g)));
    return all;
  }

  /**
   * The stats of the guard named {@code name}.
   *
   * @throws IllegalArgumentException if there is no such guard (HTTP 400)
   */
  @ReadOperation
  public Map<String, Object> guard(@Selector String name) {
    return describe(catalog.guard(name));
  }

  /**
   * Runs {@code action} on the guard named {@code name}: {@code rebuild} requests a rebuild, {@code
   * markStale} switches it to pass-through until the rebuild this requests.
   *
   * @throws IllegalArgumentException for an unknown guard or action (HTTP 400)
   */
  @WriteOperation
  public Map<String, Object> action(@Selector String name, String action) {
    GuardView guard = catalog.guard(name);
    switch (action) {
      case "rebuild" -> guard.rebuild();
      case "markStale", "mark-stale" ->
          guard.markStale("marked stale through the cuckooguard endpoint");
      default ->
          throw new IllegalArgumentException(
              "unknown action '" + action + "'; the actions are rebuild and markStale");
    }
    return describe(guard);
  }

  private static Map<String, Object> describe(GuardView guard) {
    GuardStats s = guard.stats();
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", guard.kind().name().toLowerCase(java.util.Locale.ROOT));
    d.put("lookups", s.lookups());
    d.put("definiteMisses", s.definiteMisses());
    d.put("falsePositives", s.falsePositives());
    d.put("observedFpp", finite(s.observedFpp()));
    d.put("expectedFpp", finite(guard.expectedFpp()));
    d.put("size", s.size());
    d.put("loadFactor", s.loadFactor());
    d.put("sizeInBytes", s.sizeInBytes());
    d.put("rebuilds", s.rebuilds());
    d.put("rebuildFailures", s.rebuildFailures());
    d.put("lastRebuildDuration", s.lastRebuildDuration().toString());
    d.put(
        "lastRebuildFailure",
        s.lastRebuildFailure() == null ? null : s.lastRebuildFailure().toString());
    d.put("passThrough", s.passThrough());
    d.put("rebuilding", s.rebuilding());
    return d;
  }

  private static @Nullable Double finite(double value) {
    return Double.isNaN(value) ? null : value;
  }
}
