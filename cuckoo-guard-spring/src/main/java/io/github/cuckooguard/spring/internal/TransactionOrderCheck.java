package io.github.cuckooguard.spring.internal;

import java.util.Map;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * Once the singletons exist, checks that every transaction advisor of the context is ordered after
 * the guard advisor. Otherwise a definite miss would open a transaction (and take a connection)
 * before the guard could answer, which is what the guard is for. Only advisors that share the
 * auto-proxy creator are compared; Spring Data repositories apply transactions inside their own
 * proxy, which the guard wraps.
 */
public final class TransactionOrderCheck implements SmartInitializingSingleton {

  private final ListableBeanFactory beanFactory;

  TransactionOrderCheck(ListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    GuardAdvisor guard =
        beanFactory.getBean(ProxyCuckooGuardConfiguration.ADVISOR_BEAN_NAME, GuardAdvisor.class);
    Map<String, Advisor> advisors = beanFactory.getBeansOfType(Advisor.class, false, false);
    for (Map.Entry<String, Advisor> entry : advisors.entrySet()) {
      Advisor advisor = entry.getValue();
      if (advisor.getAdvice() instanceof TransactionAspectSupport) {
        int order =
            advisor instanceof Ordered ordered ? ordered.getOrder() : Ordered.LOWEST_PRECEDENCE;
        if (order <= guard.getOrder()) {
          throw new IllegalStateException(
              "The transaction advisor '"
                  + entry.getKey()
                  + "' has order "
                  + order
                  + ", which runs before (or ties with) the Cuckoo guard advisor (order "
                  + guard.getOrder()
                  + "): a definite miss would open a transaction and take a "
                  + "connection before the guard answers. Give @EnableTransactionManagement(order = …) a "
                  + "larger value than @EnableCuckooGuard(order = …), or the guard a smaller one.");
        }
      }
    }
  }
}
