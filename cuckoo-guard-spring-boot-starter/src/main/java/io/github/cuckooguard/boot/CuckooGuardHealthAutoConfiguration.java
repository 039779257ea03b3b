package io.github.cuckooguard.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code cuckooguard} health indicator ({@code management.health.cuckooguard.enabled}), when
 * Boot's health module is present.
 */
@AutoConfiguration(after = CuckooGuardAutoConfiguration.class)
@ConditionalOnBean(GuardCatalog.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnEnabledHealthIndicator("cuckooguard")
public class CuckooGuardHealthAutoConfiguration {

  /** The health indicator. */
  @Bean
  @ConditionalOnMissingBean(name = "cuckooguardHealthIndicator")
  public CuckooGuardHealthIndicator cuckooguardHealthIndicator(GuardCatalog catalog) {
    return new CuckooGuardHealthIndicator(catalog);
  }
}
