package io.github.cuckooguard.spring.jpa;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.support.CountingDataSource;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.Jpa;
import io.github.cuckooguard.spring.support.JpaTransactions;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * Hibernate 7 on H2 through Spring Data JPA 4, with counters on connections, transactions and
 * (Hibernate statistics) SQL statements. The database URL is a bean named "h2Url".
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@EnableTransactionManagement
@EnableJpaRepositories(basePackageClasses = AccountRepository.class)
@Import(JpaTransactions.class)
public class JpaConfig {

  /** Creates the account table if needed (Hibernate then leaves it as it is). */
  public static void createSchema(String url) {
    H2.execute(url, "create table if not exists account(id bigint primary key, name varchar(255))");
  }

  @Bean
  public CountingDataSource dataSource(@Qualifier("h2Url") String url) {
    createSchema(url);
    return new CountingDataSource(H2.dataSource(url));
  }

  @Bean
  public LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
    return Jpa.entityManagerFactory(dataSource, Account.class, Map.of());
  }
}
