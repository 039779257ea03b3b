package io.github.cuckooguard.boot;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/**
 * Health of the guards ({@link GuardHealth}): {@code UP} while every guard filters; {@code
 * OUT_OF_SERVICE} while any guard is pass-through or its last rebuild failed, with the reason in
 * the guard's details. Thread-safe.
 */
public final class Boot3HealthIndicator extends AbstractHealthIndicator {

  private final GuardCatalog catalog;

  /** The health of {@code catalog}'s guards. */
  public Boot3HealthIndicator(GuardCatalog catalog) {
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
