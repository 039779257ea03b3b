package io.github.cuckooguard.spring.support;

import jakarta.persistence.EntityManagerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactions of the JPA test configurations, which import it: a real {@link
 * JpaTransactionManager} that counts the transactions it begins in a {@link TransactionCounter}
 * bean, and a {@link TransactionTemplate} on it.
 */
@Configuration(proxyBeanMethods = false)
public class JpaTransactions {

  @Bean
  public TransactionCounter transactionCounter() {
    return new TransactionCounter();
  }

  @Bean
  public PlatformTransactionManager transactionManager(
      EntityManagerFactory emf, TransactionCounter counter) {
    return new JpaTransactionManager(emf) {
      @Override
      protected void doBegin(Object transaction, TransactionDefinition definition) {
        counter.begun();
        super.doBegin(transaction, definition);
      }
    };
  }

  @Bean
  public TransactionTemplate transactionTemplate(PlatformTransactionManager transactionManager) {
    return new TransactionTemplate(transactionManager);
  }
}
