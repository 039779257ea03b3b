package io.github.cuckooguard.spring.internal;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractBeanFactoryPointcutAdvisor;

/**
 * The advisor of {@code @EnableCuckooGuard}: {@link GuardPointcut} with {@link GuardInterceptor},
 * ordered before the transaction advisor. An infrastructure bean, picked up by the infrastructure
 * auto-proxy creator like the advisors of {@code @EnableCaching}.
 */
public final class GuardAdvisor extends AbstractBeanFactoryPointcutAdvisor {

  private final GuardPointcut pointcut;

  GuardAdvisor(GuardOperationSource operations) {
    this.pointcut = new GuardPointcut(operations);
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }
}
