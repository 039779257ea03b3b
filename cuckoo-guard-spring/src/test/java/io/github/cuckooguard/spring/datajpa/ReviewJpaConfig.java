package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.JpaTransactions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * Reviewer's variant of {@link ItemJpaConfig} (R13): the same entities on H2, with the tables of
 * {@link ReviewTicket} and {@link ReviewOrder}, plus one more named query declared in code,
 * "Item.enroll", a native select that inserts (H2's data change delta table, as PostgreSQL's {@code
 * insert … returning} in a CTE would).
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@EnableTransactionManagement
@Import(JpaTransactions.class)
public class ReviewJpaConfig {

  @Bean
  public DataSource dataSource(@Qualifier("h2Url") String url) {
    H2.execute(
        url,
        "create table if not exists item(item_no bigint primary key, name varchar(255))",
        ReviewTicket.DDL,
        ReviewOrder.DDL);
    return H2.dataSource(url);
  }

  @Bean
  public LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
    LocalContainerEntityManagerFactoryBean factory =
        new LocalContainerEntityManagerFactoryBean() {
          @Override
          protected EntityManagerFactory createNativeEntityManagerFactory() {
            EntityManagerFactory emf = super.createNativeEntityManagerFactory();
            try (EntityManager em = emf.createEntityManager()) {
              emf.addNamedQuery(
                  "Item.restore",
                  em.createNativeQuery("insert into item(item_no, name) values (:id, :name)"));
              emf.addNamedQuery(
                  "Item.enroll",
                  em.createNativeQuery(
                      "select item_no from final table (insert into item(item_no, name) values"
                          + " (:id, :name))"));
            }
            return emf;
          }
        };
    factory.setDataSource(dataSource);
    factory.setPackagesToScan(Item.class.getPackageName());
    factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
    factory.setJpaPropertyMap(Map.of("hibernate.hbm2ddl.auto", "none"));
    return factory;
  }
}
