package io.github.cuckooguard.boot;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.internal.GuardClusterSettings;
import io.github.cuckooguard.spring.internal.GuardSettingsProvider;
import io.github.cuckooguard.spring.internal.ProxyCuckooGuardConfiguration;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Turns the guards on without {@code @EnableCuckooGuard}: imports what that annotation imports
 * (with its defaults) unless the application already declares it, and unless {@code
 * cuckooguard.enabled=false}. Also registers the {@code cuckooguard.guards.*} and {@code
 * cuckooguard.cluster.*} settings of the guards of the context, and the {@link GuardCatalog} the
 * meters, the health indicator and the endpoint read.
 */
@AutoConfiguration
@ConditionalOnClass({CuckooGuard.class, EnableCuckooGuard.class})
@ConditionalOnProperty(
    prefix = CuckooGuardProperties.PREFIX,
    name = "enabled",
    matchIfMissing = true)
@EnableConfigurationProperties(CuckooGuardProperties.class)
public class CuckooGuardAutoConfiguration {

  /** The guards of the context, by name. */
  @Bean
  @ConditionalOnMissingBean
  public GuardCatalog cuckooGuardCatalog(ListableBeanFactory beanFactory) {
    return new GuardCatalog(beanFactory);
  }

  /** The {@code cuckooguard.guards.<name>.*} settings of the declared guards, checked at once. */
  @Bean
  @ConditionalOnMissingBean(GuardSettingsProvider.class)
  static GuardSettingsProvider cuckooGuardEnvironmentSettings(
      CuckooGuardProperties properties, ConfigurableListableBeanFactory beanFactory) {
    return new EnvironmentGuardSettings(properties, beanFactory);
  }

  /**
   * {@code cuckooguard.cluster.enabled}, {@code hazelcast-bean}, {@code lease-millis} and {@code
   * minimum-members} for the guards of the context; each one that is set wins over the attribute of
   * an application's own {@code @EnableCuckooGuard}.
   */
  @Bean
  @ConditionalOnMissingBean(GuardClusterSettings.class)
  static GuardClusterSettings cuckooGuardClusterSettings(CuckooGuardProperties properties) {
    return new EnvironmentClusterSettings(properties.getCluster());
  }

  /**
   * {@code @EnableCuckooGuard} with its defaults, skipped when the application's own configuration
   * declared it (its registry bean then exists: user configuration is processed before
   * auto-configuration).
   */
  @Configuration(proxyBeanMethods = false)
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean(name = ProxyCuckooGuardConfiguration.REGISTRY_BEAN_NAME)
  @EnableCuckooGuard
  static class EnableGuards {}
}
