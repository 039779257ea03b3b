package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the guards: {@code UP} while every guard filters; {@code OUT_OF_SERVICE} while any
 * guard is pass-through (stale, warming up, or after a failed rebuild: lookups still answer
 * correctly, but every one reaches the store) or its last rebuild failed. The details name each
 * guard's state and, when degraded, the reason. Thread-safe.
 */
public final class CuckooGuardHealthIndicator extends AbstractHealthIndicator {

  private final GuardCatalog catalog;

  /** The health of {@code catalog}'s guards. */
  public CuckooGuardHealthIndicator(GuardCatalog catalog) {
    super("Cuckoo guard health check failed");
    this.catalog = catalog;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    boolean degraded = false;
    for (GuardView guard : catalog.guards().values()) {
      GuardStats stats = guard.stats();
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("kind", guard.kind().name().toLowerCase(java.util.Locale.ROOT));
      detail.put("passThrough", stats.passThrough());
      detail.put("rebuilding", stats.rebuilding());
      detail.put("size", stats.size());
      detail.put("loadFactor", stats.loadFactor());
      detail.put("rebuildFailures", stats.rebuildFailures());
      Throwable failure = stats.lastRebuildFailure();
      if (failure != null) {
        detail.put("reason", "last rebuild failed (pass-through until a rebuild succeeds): " + failure);
        degraded = true;
      } else if (stats.passThrough()) {
        detail.put("reason", stats.rebuilding()
            ? "pass-through while a rebuild runs (every lookup reaches the store)"
            : "pass-through (every lookup reaches the store) until the next rebuild");
        degraded = true;
      }
      builder.withDetail(guard.name(), detail);
    }
    builder.status(degraded ? Status.OUT_OF_SERVICE : Status.UP);
  }
}
