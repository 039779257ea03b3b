package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@link TransactionHooks} on spring-tx's {@link TransactionSynchronizationManager}. Loaded only
 * when spring-tx is on the class path.
 *
 * <p>Both hooks use {@code afterCompletion}, not {@code afterCommit}: its status tells a commit
 * from a rollback and from {@code STATUS_UNKNOWN} (where neither the undo nor the remove is safe,
 * so neither happens: a leak at worst), and an exception thrown there is logged by Spring instead
 * of reaching the caller after its transaction committed.
 */
final class SpringTransactionHooks implements TransactionHooks {

  private final AnnotationTransactionAttributeSource attributes = new AnnotationTransactionAttributeSource(false);

  @Override
  public boolean afterRollback(Runnable undo, Runnable last) {
    // An add is undone only for a real transaction: with synchronization alone (SUPPORTS, no
    // transaction) the write was auto-committed and a "rollback" would not remove it.
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
      @Override
      public void afterCompletion(int status) {
        try {
          if (status == STATUS_ROLLED_BACK) {
            undo.run();
          }
        } finally {
          last.run();
        }
      }
    });
    return true;
  }

  @Override
  public void afterCommit(Runnable action, Runnable last) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      Immediate.INSTANCE.afterCommit(action, last);
      return;
    }
    try {
      TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
        @Override
        public void afterCompletion(int status) {
          try {
            if (status == STATUS_COMMITTED) {
              action.run();
            }
          } finally {
            last.run();
          }
        }
      });
    } catch (RuntimeException ex) {
      last.run();
      throw ex;
    }
  }

  @Override
  public void checkAddPropagation(String where, Method method, @Nullable Class<?> targetClass) {
    TransactionAttribute attribute = attributes.getTransactionAttribute(method, targetClass);
    if (attribute == null) {
      return;
    }
    int propagation = attribute.getPropagationBehavior();
    if (propagation == TransactionDefinition.PROPAGATION_REQUIRES_NEW
        || propagation == TransactionDefinition.PROPAGATION_NOT_SUPPORTED) {
      String name = propagation == TransactionDefinition.PROPAGATION_REQUIRES_NEW ? "REQUIRES_NEW" : "NOT_SUPPORTED";
      throw new IllegalStateException(where + ": the method is @Transactional(propagation = " + name
          + "), so its write does not take part in the caller's transaction, and a rollback of "
          + "the caller's transaction would undo the add of a row that was committed (a false "
          + "negative). Use REQUIRED (the default), or move the guarded add to a method that "
          + "runs in the transaction that writes.");
    }
  }
}
