package io.github.cuckooguard.boot;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Binds a {@link GuardMeterBinder} per guard to every {@link MeterRegistry} once the singletons
 * exist (the entity guards are known only after the {@code EntityManagerFactory} is built).
 * Requires Micrometer; off with {@code cuckooguard.metrics.enabled=false}.
 */
@AutoConfiguration(
    after = CuckooGuardAutoConfiguration.class,
    afterName = {
      // Boot 4, then Boot 3: the class moved
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(GuardCatalog.class)
@ConditionalOnProperty(
    prefix = CuckooGuardProperties.PREFIX + ".metrics",
    name = "enabled",
    matchIfMissing = true)
public class CuckooGuardMetricsAutoConfiguration {

  /** Binds the guards' meters after singleton instantiation. */
  @Bean
  public SmartInitializingSingleton cuckooGuardMeterBinding(
      GuardCatalog catalog, ObjectProvider<MeterRegistry> registries) {
    return () ->
        registries
            .orderedStream()
            .forEach(
                registry ->
                    catalog
                        .guards()
                        .values()
                        .forEach(guard -> new GuardMeterBinder(guard).bindTo(registry)));
  }
}
