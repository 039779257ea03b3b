package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Passes {@code cuckooguard.hibernate.*} to Hibernate as {@code hibernate.cuckoo.*} through a
 * {@link HibernatePropertiesCustomizer}, after checking every key, so that a misspelled one fails
 * the start with the accepted names; and logs the open-in-view caveat once.
 */
@AutoConfiguration(
    before = org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration.class)
@ConditionalOnClass({HibernateCuckooGuards.class, HibernatePropertiesCustomizer.class})
@ConditionalOnProperty(
    prefix = CuckooGuardProperties.PREFIX,
    name = "enabled",
    matchIfMissing = true)
@EnableConfigurationProperties(CuckooGuardProperties.class)
public class CuckooGuardHibernateAutoConfiguration {

  /**
   * The names cuckoo-guard-hibernate reads itself under {@code hibernate.cuckoo.}, besides
   * GuardSpec's.
   */
  static final Set<String> ADAPTER_NAMES =
      Set.of(
          unprefixed(CuckooGuardSettings.ENABLED),
          unprefixed(CuckooGuardSettings.ENTITIES),
          unprefixed(CuckooGuardSettings.SCAN_FETCH_SIZE));

  private static String unprefixed(String key) {
    return key.substring(CuckooGuardSettings.PREFIX.length());
  }

  /** Adds {@code cuckooguard.hibernate.*} to Hibernate's settings as {@code hibernate.cuckoo.*}. */
  @Bean
  public HibernatePropertiesCustomizer cuckooGuardHibernatePropertiesCustomizer(
      CuckooGuardProperties properties) {
    return hibernateProperties -> {
      for (Map.Entry<String, String> e : properties.getHibernate().entrySet()) {
        hibernateProperties.put(CuckooGuardSettings.PREFIX + e.getKey(), e.getValue());
      }
      if (Boolean.getBoolean(AotProcessingEnvironment.AOT_PROCESSING)) {
        // No guard in a factory built during AOT processing (see AotProcessingEnvironment); the
        // generated code builds the real factory at run time, when this flag is unset.
        hibernateProperties.put(CuckooGuardSettings.ENABLED, "false");
      }
      try {
        GuardSpec.parse(hibernateProperties, CuckooGuardSettings.PREFIX, ADAPTER_NAMES);
      } catch (IllegalArgumentException ex) {
        throw new CuckooGuardPropertyException(
            ex.getMessage()
                    .replace(
                        CuckooGuardSettings.PREFIX, CuckooGuardProperties.PREFIX + ".hibernate.")
                + " (hibernate.cuckoo.* settings come from cuckooguard.hibernate.* or spring.jpa.properties.hibernate.cuckoo.*)",
            ex);
      }
    };
  }

  /** Logs once that open-in-view makes an absent find take a connection. */
  @Bean
  static OpenInViewWarning cuckooGuardOpenInViewWarning(Environment environment) {
    return new OpenInViewWarning(environment);
  }
}
