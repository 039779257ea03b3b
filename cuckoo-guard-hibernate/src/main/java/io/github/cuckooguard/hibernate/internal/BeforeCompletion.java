package io.github.cuckooguard.hibernate.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.hibernate.HibernateException;
import org.hibernate.Transaction;

/**
 * Runs work in a transaction's before-completion phase, where an exception makes Hibernate roll the
 * transaction back ({@code Transaction.registerSynchronization}; for resource-local transactions
 * the coordinator marks it rollback-only and rethrows, for JTA the transaction manager rolls back).
 *
 * <p>Why reflection: the synchronization type, {@code jakarta.transaction.Synchronization}, is in
 * jakarta.transaction-api, whose module requires CDI; this module cannot require it, and the class
 * path is where Hibernate applications have it. The proxy implements it from the class loader that
 * loaded Hibernate's {@code Transaction}.
 */
final class BeforeCompletion {

  private BeforeCompletion() {}

  /**
   * Registers {@code work} to run before {@code transaction} completes; whatever it throws rolls
   * the transaction back.
   *
   * @throws HibernateException if the synchronization cannot be registered (the caller's statement
   *     must then not run)
   */
  static void register(Transaction transaction, Runnable work) {
    try {
      ClassLoader loader = Transaction.class.getClassLoader();
      Class<?> type = Class.forName("jakarta.transaction.Synchronization", false, loader);
      InvocationHandler handler =
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "beforeCompletion" -> work.run();
              case "afterCompletion" -> {}
              case "hashCode" -> {
                return System.identityHashCode(proxy);
              }
              case "equals" -> {
                return args != null && args.length == 1 && proxy == args[0];
              }
              case "toString" -> {
                return "cuckoo-guard fence before completion";
              }
              default -> throw new UnsupportedOperationException(method.getName());
            }
            return null;
          };
      Object synchronization = Proxy.newProxyInstance(loader, new Class<?>[] {type}, handler);
      Method register = Transaction.class.getMethod("registerSynchronization", type);
      register.invoke(transaction, synchronization);
    } catch (InvocationTargetException e) {
      throw new HibernateException(
          "could not register the cluster fence before the commit", e.getCause());
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new HibernateException("could not register the cluster fence before the commit", e);
    }
  }
}
