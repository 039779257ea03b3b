package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Where the interceptor meets transactions. With spring-tx on the class path (detected by class
 * presence, so that it stays an optional dependency) adds are undone on rollback and removes wait
 * for the commit; without it there are no transactions to wait for, and both apply at once.
 */
interface TransactionHooks {

  /** Hooks for this class path: spring-tx's synchronizations if present, otherwise immediate. */
  static TransactionHooks detect(@Nullable ClassLoader classLoader) {
    return ClassUtils.isPresent("org.springframework.transaction.support.TransactionSynchronizationManager", classLoader)
        ? new SpringTransactionHooks()
        : Immediate.INSTANCE;
  }

  /**
   * If a transaction is active now, arranges for {@code undo} to run if it rolls back, and for
   * {@code last} to run when it completes either way, after {@code undo}. A transaction that the
   * guarded method itself starts later is not seen here.
   *
   * @return false if no transaction is active: nothing was registered
   */
  boolean afterRollback(Runnable undo, Runnable last);

  /**
   * Runs {@code action} after the active transaction commits (never if it rolls back or ends in
   * an unknown state), or now if none is active; runs {@code last} in every case, after
   * {@code action}.
   */
  void afterCommit(Runnable action, Runnable last);

  /**
   * Checks when the context starts that a guarded add takes part in the caller's transaction.
   *
   * @throws IllegalStateException if the method starts a transaction of its own inside the
   *     caller's, so that the caller's rollback would undo an add whose row was committed
   */
  void checkAddPropagation(String where, Method method, @Nullable Class<?> targetClass);

  /** No spring-tx: nothing to wait for. */
  enum Immediate implements TransactionHooks {
    INSTANCE;

    @Override
    public boolean afterRollback(Runnable undo, Runnable last) {
      return false;
    }

    @Override
    public void afterCommit(Runnable action, Runnable last) {
      try {
        action.run();
      } finally {
        last.run();
      }
    }

    @Override
    public void checkAddPropagation(String where, Method method, @Nullable Class<?> targetClass) {}
  }
}
