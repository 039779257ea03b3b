package io.github.cuckooguard.spring.contract;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.contract.GuardedSourceContract;
import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.EnableCuckooGuard;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedRemove;
import io.github.cuckooguard.spring.support.H2;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The core's contract on a real Spring context with transactions: an annotated JDBC repository on
 * an H2 table, each insert and remove called inside a {@link TransactionTemplate} transaction, so
 * that the enter becomes visible and the leave gone in the transaction's {@code afterCompletion},
 * while the rebuilds scan the table with a plain {@code select}.
 */
class TransactionalSpringGuardContractTest extends GuardedSourceContract {

  /** Rows of table {@code contract_keys}; the key is the primary key. */
  @CuckooGuarded(name = "contract", spec = "contractSpec", startsEmpty = true)
  @Transactional
  public static class JdbcRepository {
    private final JdbcTemplate jdbc;

    public JdbcRepository(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @GuardedAdd
    public int insert(long key) {
      return jdbc.update("insert into contract_keys(id) values (?)", key);
    }

    @GuardedRemove
    public int delete(long key) {
      return jdbc.update("delete from contract_keys where id = ?", key);
    }

    @GuardKeySource
    @Transactional(readOnly = true)
    public List<Long> allKeys() {
      return jdbc.queryForList("select id from contract_keys", Long.class);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard
  @EnableTransactionManagement
  @Import(JdbcRepository.class)
  static class Config {
    @Bean
    DataSource dataSource() {
      String url = H2.newUrl();
      H2.execute(url, "create table contract_keys(id bigint primary key)");
      return H2.dataSource(url);
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }

    @Bean
    TransactionTemplate transactionTemplate(PlatformTransactionManager transactionManager) {
      return new TransactionTemplate(transactionManager);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  protected Subject newSubject(GuardSpec spec) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.registerBean("contractSpec", GuardSpec.class, () -> spec);
    context.register(Config.class);
    context.refresh();
    JdbcRepository repository = context.getBean(JdbcRepository.class);
    TransactionTemplate tx = context.getBean(TransactionTemplate.class);
    CuckooGuard<Object> guard = context.getBean("contract", CuckooGuard.class);
    return new SpringGuardContractTest.ContextSubject(
        context,
        guard,
        key -> tx.execute(status -> repository.insert(key)) == 1,
        key -> tx.execute(status -> repository.delete(key)) == 1);
  }
}
