package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.Jpa;
import io.github.cuckooguard.spring.support.JpaTransactions;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * Hibernate 7 on H2 for {@link Customer}, without cuckoo-guard-hibernate's guard; the tests add
 * {@code @EnableJpaRepositories} for one repository each. The database URL is a bean "h2Url".
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@EnableTransactionManagement
@Import(JpaTransactions.class)
public class CustomerJpaConfig {

  @Bean
  public DataSource dataSource(@Qualifier("h2Url") String url) {
    H2.execute(
        url, "create table if not exists customer(id bigint primary key, name varchar(255))");
    return H2.dataSource(url);
  }

  @Bean
  public LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
    return Jpa.entityManagerFactory(dataSource, Customer.class, Map.of());
  }
}
