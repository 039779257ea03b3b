package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.support.H2;
import io.github.cuckooguard.spring.support.JpaTransactions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * Hibernate 7 on H2 for {@link Item} (and the other entities of this package), with one more named
 * query, "Item.restore", added in code when the entity manager factory is built (where no
 * annotation shows it, as in orm.xml); the tests add {@code @EnableJpaRepositories} for one
 * repository each. The database URL is a bean "h2Url".
 */
@Configuration(proxyBeanMethods = false)
@EnableCuckooGuard
@EnableTransactionManagement
@Import(JpaTransactions.class)
public class ItemJpaConfig {

  @Bean
  public DataSource dataSource(@Qualifier("h2Url") String url) {
    H2.execute(
        url, "create table if not exists item(item_no bigint primary key, name varchar(255))");
    return H2.dataSource(url);
  }

  @Bean
  public LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
    LocalContainerEntityManagerFactoryBean factory =
        new LocalContainerEntityManagerFactoryBean() {
          @Override
          protected EntityManagerFactory createNativeEntityManagerFactory() {
            EntityManagerFactory emf = super.createNativeEntityManagerFactory();
            // A named query declared in code, not by an annotation (as orm.xml would declare it):
            // Spring Data runs it for ItemNamedInsertRepository.restore.
            try (EntityManager em = emf.createEntityManager()) {
              emf.addNamedQuery(
                  "Item.restore",
                  em.createNativeQuery("insert into item(item_no, name) values (:id, :name)"));
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

  /** Whether the committed table holds the row {@code id}, asked outside any transaction. */
  public static boolean committedItemExists(String url, long id) {
    try (Connection c = H2.dataSource(url).getConnection();
        PreparedStatement ps = c.prepareStatement("select count(*) from item where item_no = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    } catch (SQLException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
