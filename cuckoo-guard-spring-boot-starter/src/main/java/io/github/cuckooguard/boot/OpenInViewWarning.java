package io.github.cuckooguard.boot;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;

/**
 * Logs a WARN once when open-in-view is on and a guard exists: the view's {@code EntityManager} is
 * bound for the whole request, so an absent {@code findById} that the guard answers still holds a
 * connection for the request (no SELECT runs). Open-in-view counts as on when {@code
 * spring.jpa.open-in-view} is true, or when it is unset and Boot registered its interceptor.
 */
final class OpenInViewWarning implements SmartInitializingSingleton, BeanFactoryAware {

  static final String MESSAGE =
      "spring.jpa.open-in-view is on and the context has Cuckoo guards %s: "
          + "a guarded find of an absent id runs no SQL, but the request still holds the view's "
          + "EntityManager and, once anything opens it, a connection. Set spring.jpa.open-in-view=false "
          + "to let a definite miss take no connection.";

  private static final Log LOG = LogFactory.getLog(OpenInViewWarning.class);
  private static final String INTERCEPTOR =
      "org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor";

  private final Environment environment;
  private final AtomicBoolean logged = new AtomicBoolean();
  private ListableBeanFactory beanFactory;

  OpenInViewWarning(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
    this.beanFactory = (ListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    Boolean configured = environment.getProperty("spring.jpa.open-in-view", Boolean.class);
    boolean on = configured != null ? configured : interceptorPresent();
    if (!on) {
      return;
    }
    GuardCatalog catalog = beanFactory.getBeanProvider(GuardCatalog.class).getIfAvailable();
    if (catalog == null || catalog.guards().isEmpty()) {
      return;
    }
    if (logged.compareAndSet(false, true)) {
      LOG.warn(String.format(MESSAGE, catalog.guards().keySet()));
    }
  }

  private boolean interceptorPresent() {
    try {
      Class<?> type = Class.forName(INTERCEPTOR, false, getClass().getClassLoader());
      return beanFactory.getBeanNamesForType(type, false, false).length > 0;
    } catch (ClassNotFoundException | LinkageError ex) {
      return false;
    }
  }
}
