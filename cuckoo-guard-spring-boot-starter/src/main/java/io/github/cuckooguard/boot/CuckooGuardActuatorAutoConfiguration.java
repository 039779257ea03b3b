package io.github.cuckooguard.boot;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code cuckooguard} endpoint, when Actuator is present and the endpoint is available ({@code
 * management.endpoint.cuckooguard.*}). The health indicator has its own auto-configuration, since
 * Boot 4 moved the health classes.
 */
@AutoConfiguration(after = CuckooGuardAutoConfiguration.class)
@ConditionalOnBean(GuardCatalog.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnAvailableEndpoint(CuckooGuardEndpoint.class)
public class CuckooGuardActuatorAutoConfiguration {

  /** The endpoint. */
  @Bean
  @ConditionalOnMissingBean
  public CuckooGuardEndpoint cuckooGuardEndpoint(GuardCatalog catalog) {
    return new CuckooGuardEndpoint(catalog);
  }
}
