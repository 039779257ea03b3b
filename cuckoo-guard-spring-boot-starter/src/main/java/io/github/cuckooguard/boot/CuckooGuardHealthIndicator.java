package io.github.cuckooguard.boot;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the guards ({@link GuardHealth}): {@code UP} while every guard filters; {@code
 * OUT_OF_SERVICE} while any guard is pass-through or its last rebuild failed, with the reason in
 * the guard's details. Thread-safe.
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
    GuardHealth health = GuardHealth.of(catalog);
    health.details().forEach(builder::withDetail);
    builder.status(health.degraded() ? Status.OUT_OF_SERVICE : Status.UP);
  }
}
