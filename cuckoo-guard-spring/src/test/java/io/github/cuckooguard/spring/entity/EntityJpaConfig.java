package io.github.cuckooguard.spring.entity;

import io.github.cuckooguard.hibernate.CuckooGuardSettings;
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
import org.springframework.core.env.Environment;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * Hibernate 7 with cuckoo-guard-hibernate on H2, through Spring Data JPA 4: {@link
 * MemberRepository} and {@link MemberDao} delegate their finders to the entity guard of {@link
 * Member}. Counters on connections, transactions and (Hibernate statistics) SQL statements. The
 * database URL is a bean named "h2Url"; the environment property {@code hibernate.cuckoo.enabled}
 * is passed on.
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@EnableTransactionManagement
@EnableJpaRepositories(basePackageClasses = MemberRepository.class)
@Import({MemberDao.class, JpaTransactions.class})
public class EntityJpaConfig {

  /** Creates the tables if needed (Hibernate then leaves them as they are). */
  public static void createSchema(String url) {
    H2.execute(
        url,
        "create table if not exists club_member(id bigint primary key, name varchar(255))",
        "create table if not exists unguarded(id bigint primary key)");
  }

  @Bean
  public CountingDataSource dataSource(@Qualifier("h2Url") String url) {
    createSchema(url);
    return new CountingDataSource(H2.dataSource(url));
  }

  @Bean
  public LocalContainerEntityManagerFactoryBean entityManagerFactory(
      DataSource dataSource, Environment env) {
    return Jpa.entityManagerFactory(
        dataSource,
        Member.class,
        Map.of(CuckooGuardSettings.ENABLED, env.getProperty(CuckooGuardSettings.ENABLED, "true")));
  }
}
