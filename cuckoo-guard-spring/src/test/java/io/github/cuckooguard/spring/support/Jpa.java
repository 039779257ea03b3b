package io.github.cuckooguard.spring.support;

import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/** Hibernate 7 through Spring's JPA support, as the JPA test configurations build it. */
public final class Jpa {

  private Jpa() {}

  /**
   * An entity manager factory for the entities of one package, with Hibernate statistics on, the
   * schema left alone (the tests create it) and {@code settings} added.
   */
  public static LocalContainerEntityManagerFactoryBean entityManagerFactory(
      DataSource dataSource, Class<?> entitiesOf, Map<String, ?> settings) {
    LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
    factory.setDataSource(dataSource);
    factory.setPackagesToScan(entitiesOf.getPackageName());
    factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
    Map<String, Object> properties = new HashMap<>(settings);
    properties.put("hibernate.hbm2ddl.auto", "none");
    properties.put("hibernate.generate_statistics", "true");
    factory.setJpaPropertyMap(properties);
    return factory;
  }
}
