package io.github.cuckooguard.boot;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code cuckooguard} health indicator and endpoint, each when its Actuator part is present. */
@AutoConfiguration(after = CuckooGuardAutoConfiguration.class)
@ConditionalOnBean(GuardCatalog.class)
public class CuckooGuardActuatorAutoConfiguration {

  /** The health indicator ({@code management.health.cuckooguard.enabled}). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
  @ConditionalOnEnabledHealthIndicator("cuckooguard")
  static class Health {

    @Bean
    @ConditionalOnMissingBean(name = "cuckooguardHealthIndicator")
    CuckooGuardHealthIndicator cuckooguardHealthIndicator(GuardCatalog catalog) {
      return new CuckooGuardHealthIndicator(catalog);
    }
  }

  /** The endpoint, when available ({@code management.endpoint.cuckooguard.*}). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  @ConditionalOnAvailableEndpoint(CuckooGuardEndpoint.class)
  static class Endpoints {

    @Bean
    @ConditionalOnMissingBean
    CuckooGuardEndpoint cuckooGuardEndpoint(GuardCatalog catalog) {
      return new CuckooGuardEndpoint(catalog);
    }
  }
}
