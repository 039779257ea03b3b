package io.github.cuckooguard.boot;

import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.context.ApplicationContext;

/**
 * Reads the starter's health indicator on this Boot line (Boot 3.5:
 * org.springframework.boot.actuate.health).
 */
final class HealthProbe {

  private HealthProbe() {}

  /** A health reading: the status code and the details. */
  record Reading(String status, Map<String, Object> details) {}

  static Reading read(ApplicationContext context) {
    Health health =
        context.getBean("cuckooguardHealthIndicator", Boot3HealthIndicator.class).getHealth(true);
    return new Reading(health.getStatus().getCode(), health.getDetails());
  }
}
