package io.github.cuckooguard.spring.cluster;

import io.github.cuckooguard.spring.jdbc.JdbcConfig;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.H2;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One application instance: H2 (the database named by the bean "h2Url", shared by the instances of
 * a test), JdbcTemplate, DataSourceTransactionManager and {@link ClusterUserRepository}. The test
 * registers the {@code HazelcastInstance} bean, or none. Imported by the configurations of {@link
 * ClusterConfigs}, which differ only in {@code @EnableCuckooGuard}.
 */
@Configuration(proxyBeanMethods = false)
@EnableTransactionManagement
@Import(ClusterUserRepository.class)
public class ClusterBeans {

  @Bean
  public DataSource dataSource(@Qualifier("h2Url") String url) {
    JdbcConfig.createSchema(url);
    return H2.dataSource(url);
  }

  @Bean
  public CallCounter callCounter() {
    return new CallCounter();
  }

  @Bean
  public PlatformTransactionManager transactionManager(DataSource dataSource) {
    return new DataSourceTransactionManager(dataSource);
  }

  @Bean
  public JdbcTemplate jdbcTemplate(DataSource dataSource) {
    return new JdbcTemplate(dataSource);
  }

  @Bean
  public TransactionTemplate transactionTemplate(PlatformTransactionManager transactionManager) {
    return new TransactionTemplate(transactionManager);
  }
}
