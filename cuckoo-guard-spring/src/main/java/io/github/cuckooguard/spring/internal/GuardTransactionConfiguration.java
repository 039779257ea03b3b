package io.github.cuckooguard.spring.internal;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Imported by {@code @EnableCuckooGuard} when spring-tx is present: checks that the guard advisor
 * runs before every transaction advisor.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public class GuardTransactionConfiguration {

  /** Fails the start of the context if a transaction advisor is ordered before the guard. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public TransactionOrderCheck cuckooGuardTransactionOrderCheck(ListableBeanFactory beanFactory) {
    return new TransactionOrderCheck(beanFactory);
  }
}
