package io.github.cuckooguard.spring.internal;

import java.lang.System.Logger.Level;
import java.util.Map;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;

/**
 * Once the singletons exist, checks that every transaction advisor of the context is ordered after
 * the guard advisor. Otherwise a definite miss would open a transaction (and take a connection)
 * before the guard could answer, which is what the guard is for. Only advisors that share the
 * auto-proxy creator are compared; Spring Data repositories apply transactions inside their own
 * proxy, which the guard wraps.
 *
 * <p>Also warns of a transaction manager set to {@code SYNCHRONIZATION_NEVER}: the guard cannot
 * wait for its commits, so a guarded remove in its transactions keeps the key's fingerprint (a
 * false positive until the next rebuild) instead of taking it before the delete is committed.
 */
public final class TransactionOrderCheck implements SmartInitializingSingleton {

  private static final System.Logger LOG = System.getLogger(TransactionOrderCheck.class.getName());

  private final ListableBeanFactory beanFactory;

  TransactionOrderCheck(ListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (Map.Entry<String, AbstractPlatformTransactionManager> e :
        beanFactory
            .getBeansOfType(AbstractPlatformTransactionManager.class, false, false)
            .entrySet()) {
      if (e.getValue().getTransactionSynchronization()
          == AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER) {
        LOG.log(
            Level.WARNING,
            "Transaction manager '"
                + e.getKey()
                + "' is set to SYNCHRONIZATION_NEVER: Cuckoo guards cannot wait for its commits,"
                + " so a guarded remove in its transactions keeps the key's fingerprint (a false"
                + " positive) until the next rebuild, and a guarded add stays in flight until the"
                + " manager released its connection or session"
                + (e.getValue().getClass().getName().contains(".jta.")
                    ? " (a JTA manager binds none: there an add ends when the method returns, and"
                        + " a rebuild scanning before the commit misses its row)"
                    : "")
                + ". Leave it at SYNCHRONIZATION_ALWAYS (the default) or"
                + " SYNCHRONIZATION_ON_ACTUAL_TRANSACTION.");
      }
    }
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
