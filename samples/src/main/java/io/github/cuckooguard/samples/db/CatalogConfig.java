package io.github.cuckooguard.samples.db;

import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * The application: H2 through a connection pool, Hibernate as the JPA provider, Spring's JPA
 * transactions, and {@link ArticleRepository}. {@link GuardedCatalogConfig} adds
 * {@code @EnableCuckooGuard}; without it the same application runs without any guard. The database
 * URL and the guard settings come from a {@link Settings} bean, and statements and transactions are
 * counted by a {@link Meter} bean; both are registered before the context is refreshed.
 */
@Configuration(proxyBeanMethods = false)
@EnableTransactionManagement
@Import(ArticleRepository.class)
public class CatalogConfig {

  /**
   * What differs between runs.
   *
   * @param guarded whether Hibernate's guard is on (the Spring guard is on with {@link
   *     GuardedCatalogConfig})
   * @param expectedRows rows Hibernate's guard is sized for at start
   */
  public record Settings(
      String url, int connections, boolean guarded, long expectedRows, double fpp) {}

  /** Spring's JPA transactions, counted by the {@link Meter}. */
  static final class CountingTransactionManager extends JpaTransactionManager {
    private final transient Meter meter;

    CountingTransactionManager(EntityManagerFactory entityManagerFactory, Meter meter) {
      super(entityManagerFactory);
      this.meter = meter;
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {
      meter.transactionBegun();
      super.doBegin(transaction, definition);
    }
  }

  @Bean(destroyMethod = "dispose")
  public JdbcConnectionPool dataSource(Settings settings) {
    JdbcConnectionPool pool = JdbcConnectionPool.create(settings.url(), "sa", "");
    pool.setMaxConnections(settings.connections());
    return pool;
  }

  @Bean
  public LocalContainerEntityManagerFactoryBean entityManagerFactory(
      DataSource dataSource, Settings settings, Meter meter) {
    LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
    factory.setDataSource(dataSource);
    factory.setPackagesToScan(Article.class.getPackageName());
    factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
    factory.setJpaPropertyMap(
        Map.of(
            "hibernate.hbm2ddl.auto",
            "none", // the table is created and loaded over JDBC
            "hibernate.session_factory.statement_inspector",
            meter,
            CuckooGuardSettings.ENABLED,
            String.valueOf(settings.guarded()),
            CuckooGuardSettings.EXPECTED_INSERTIONS,
            String.valueOf(settings.expectedRows()),
            CuckooGuardSettings.FPP,
            String.valueOf(settings.fpp())));
    return factory;
  }

  @Bean
  public JpaTransactionManager transactionManager(
      EntityManagerFactory entityManagerFactory, Meter meter) {
    return new CountingTransactionManager(entityManagerFactory, meter);
  }
}
