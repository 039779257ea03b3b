package io.github.cuckooguard.boot;

import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.orm.jpa.HibernatePropertiesCustomizer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Passes {@code cuckooguard.hibernate.*} and {@code cuckooguard.cluster.*} to Hibernate ({@link
 * HibernateGuardProperties}) through a {@link HibernatePropertiesCustomizer}, so that a misspelled
 * key fails the start with the accepted names; and logs the open-in-view caveat once.
 */
@AutoConfiguration(
    before = org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration.class)
@ConditionalOnClass({HibernateCuckooGuards.class, HibernatePropertiesCustomizer.class})
@ConditionalOnProperty(
    prefix = CuckooGuardProperties.PREFIX,
    name = "enabled",
    matchIfMissing = true)
@EnableConfigurationProperties(CuckooGuardProperties.class)
public class Boot3HibernateAutoConfiguration {

  /** Adds the starter's settings to Hibernate's, checked. */
  @Bean
  public HibernatePropertiesCustomizer cuckooGuardHibernatePropertiesCustomizer(
      CuckooGuardProperties properties) {
    return hibernateProperties ->
        HibernateGuardProperties.customize(properties, hibernateProperties);
  }

  /** Logs once that open-in-view makes an absent find take a connection. */
  @Bean
  static OpenInViewWarning cuckooGuardOpenInViewWarning(Environment environment) {
    return new OpenInViewWarning(environment);
  }
}
