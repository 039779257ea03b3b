package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@link TransactionHooks} on spring-tx's {@link TransactionSynchronizationManager}. Loaded only
 * when spring-tx is on the class path.
 *
 * <p>The outcome is taken in {@code afterCompletion}, not {@code afterCommit}: its status tells a
 * commit from a rollback and from {@code STATUS_UNKNOWN}, and an exception thrown there is logged
 * by Spring instead of reaching the caller after its transaction committed. Only a real transaction
 * counts: with synchronization alone ({@code SUPPORTS} without a transaction) every statement
 * auto-commits, so a "rollback" of that scope would not undo a write.
 */
final class SpringTransactionHooks implements TransactionHooks {

  private final AnnotationTransactionAttributeSource attributes =
      new AnnotationTransactionAttributeSource(false);

  @Override
  public boolean onCompletion(Consumer<Outcome> completion, Runnable suspended) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          // Spring calls beforeCompletion before the commit (and before a rollback) on every
          // synchronization registered by then; one registered later, in an afterCommit (or
          // another's beforeCompletion), still gets afterCompletion, with the status of a commit
          // that came before its write
          private volatile boolean beforeCompletion;

          // Spring (6.2 on) tells every synchronization of the transaction of each savepoint
          // created and each rollback to one: a rollback to a savepoint this one never heard
          // created goes back to before its registration, so it undid the write. Created at the
          // first savepoint: most transactions take none.
          private @Nullable Set<Object> savepoints;
          private volatile boolean undone;

          @Override
          public void suspend() {
            suspended.run();
          }

          @Override
          public void savepoint(Object savepoint) {
            Set<Object> seen = savepoints;
            if (seen == null) {
              seen = Collections.newSetFromMap(new IdentityHashMap<>());
              savepoints = seen;
            }
            seen.add(savepoint);
          }

          @Override
          public void savepointRollback(Object savepoint) {
            Set<Object> seen = savepoints;
            if (seen == null || !seen.contains(savepoint)) {
              undone = true;
            }
          }

          @Override
          public void beforeCompletion() {
            beforeCompletion = true;
          }

          @Override
          public void afterCompletion(int status) {
            completion.accept(
                status == STATUS_COMMITTED
                    ? !beforeCompletion
                        ? Outcome.COMMITTED_BEFORE_THE_WRITE
                        : undone ? Outcome.COMMITTED_AFTER_A_SAVEPOINT_ROLLBACK : Outcome.COMMITTED
                    : status == STATUS_ROLLED_BACK ? Outcome.ROLLED_BACK : Outcome.UNKNOWN);
          }
        });
    return true;
  }

  /**
   * Synchronization off, resources bound: Spring's transaction managers bind their connection,
   * session or entity manager in {@code doBegin} whatever their synchronization setting, and
   * without synchronization nothing else binds them; {@code SUPPORTS} without a transaction
   * (synchronization on, no actual transaction) auto-commits and is not this case.
   */
  @Override
  public boolean unfollowedTransactionPossible() {
    return !TransactionSynchronizationManager.isSynchronizationActive()
        && !TransactionSynchronizationManager.getResourceMap().isEmpty();
  }

  /**
   * The holders bound to this thread that a transaction manager marked as synchronized with its
   * transaction ({@code doBegin} does, whatever the synchronization setting), watched by {@link
   * ResourceReleaseWatch} until the manager's cleanup clears them. JTA's manager binds none: false.
   */
  @Override
  public boolean whenResourcesReleased(Runnable released) {
    List<ResourceHolderSupport> holders = new ArrayList<>();
    for (Object value : TransactionSynchronizationManager.getResourceMap().values()) {
      if (value instanceof ResourceHolderSupport holder && holder.isSynchronizedWithTransaction()) {
        holders.add(holder);
      }
    }
    if (holders.isEmpty()) {
      return false;
    }
    ResourceReleaseWatch.watch(holders, released);
    return true;
  }

  @Override
  public <B extends BeforeCommit> @Nullable B perTransaction(
      Object owner, Class<B> type, Supplier<B> create) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return null;
    }
    // Found among the transaction's synchronizations, not bound as a resource: Spring suspends and
    // resumes the synchronizations with their transaction, a resource bound here it would not.
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof Bound bound && bound.owner == owner && type.isInstance(bound.work)) {
        return type.cast(bound.work);
      }
    }
    B work = create.get();
    TransactionSynchronizationManager.registerSynchronization(new Bound(owner, work));
    return work;
  }

  /** The synchronization of {@link #perTransaction}. */
  private static final class Bound implements TransactionSynchronization {
    final Object owner;
    final BeforeCommit work;

    Bound(Object owner, BeforeCommit work) {
      this.owner = owner;
      this.work = work;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
      work.beforeCommit();
    }

    @Override
    public void beforeCompletion() {
      work.beforeCompletion();
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
      String name =
          propagation == TransactionDefinition.PROPAGATION_REQUIRES_NEW
              ? "REQUIRES_NEW"
              : "NOT_SUPPORTED";
      throw new IllegalStateException(
          where
              + ": the method is @Transactional(propagation = "
              + name
              + "), so its write does not take part in the caller's transaction, and a rollback of "
              + "the caller's transaction would abort the enter of a row that was committed (a "
              + "false negative). Use REQUIRED (the default), or move the guarded add to a method that "
              + "runs in the transaction that writes.");
    }
  }
}
