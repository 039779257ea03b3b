package io.github.cuckooguard.boot;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code cuckooguard} health indicator ({@code management.health.cuckooguard.enabled}), when
 * Actuator's health support is present (Boot 3.5).
 */
@AutoConfiguration(after = CuckooGuardAutoConfiguration.class)
@ConditionalOnBean(GuardCatalog.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnEnabledHealthIndicator("cuckooguard")
public class Boot3HealthAutoConfiguration {

  /** The health indicator. */
  @Bean
  @ConditionalOnMissingBean(name = "cuckooguardHealthIndicator")
  public Boot3HealthIndicator cuckooguardHealthIndicator(GuardCatalog catalog) {
    return new Boot3HealthIndicator(catalog);
  }
}
