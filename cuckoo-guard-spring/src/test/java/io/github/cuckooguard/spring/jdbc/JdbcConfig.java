package io.github.cuckooguard.spring.jdbc;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.support.CallCounter;
import io.github.cuckooguard.spring.support.CountingDataSource;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.TransactionCounter;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * H2 + JdbcTemplate + DataSourceTransactionManager + {@link JdbcUserRepository}, with counters on
 * connections and transactions. The database URL is a bean named "h2Url" registered by the test,
 * which may also register a {@link KeyScanHook}.
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@EnableTransactionManagement
@Import(JdbcUserRepository.class)
public class JdbcConfig {

  /** Creates the users table if needed. */
  public static void createSchema(String url) {
    H2.execute(url, "create table if not exists users(id bigint primary key, name varchar(100))");
  }

  @Bean
  public CountingDataSource dataSource(@Qualifier("h2Url") String url) {
    createSchema(url);
    return new CountingDataSource(H2.dataSource(url));
  }

  @Bean
  public CallCounter callCounter() {
    return new CallCounter();
  }

  @Bean
  public TransactionCounter transactionCounter() {
    return new TransactionCounter();
  }

  @Bean
  public PlatformTransactionManager transactionManager(
      DataSource dataSource, TransactionCounter counter) {
    return new DataSourceTransactionManager(dataSource) {
      @Override
      protected void doBegin(Object transaction, TransactionDefinition definition) {
        counter.begun();
        super.doBegin(transaction, definition);
      }
    };
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
