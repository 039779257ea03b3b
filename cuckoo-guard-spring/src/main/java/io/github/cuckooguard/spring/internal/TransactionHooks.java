package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Where the interceptor meets transactions. With spring-tx on the class path (detected by class
 * presence, so that it stays an optional dependency) the end of a guarded write waits for the
 * transaction active at the call; without it there are no transactions to wait for.
 */
interface TransactionHooks {

  /** How the transaction of a guarded write ended. */
  enum Outcome {
    COMMITTED,
    ROLLED_BACK,
    /** Neither is known (a heuristic outcome, a failed commit): the write may or may not stand. */
    UNKNOWN,
    /**
     * The transaction committed, but the write was made after its commit had begun (in one of its
     * {@code afterCommit} or {@code beforeCompletion} callbacks, where Spring warns that no commit
     * follows): the write itself commits later (when the manager's cleanup resets auto-commit) or
     * never, and nothing here can wait for it.
     */
    COMMITTED_BEFORE_THE_WRITE,
    /**
     * The transaction committed, but it was rolled back to a savepoint taken before the completion
     * was registered (a {@code NESTED} scope around the write, or a savepoint the caller took and
     * rolled back to): a write made after that savepoint was undone.
     */
    COMMITTED_AFTER_A_SAVEPOINT_ROLLBACK
  }

  /** Hooks for this class path: spring-tx's synchronizations if present, otherwise none. */
  static TransactionHooks detect(@Nullable ClassLoader classLoader) {
    return ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            classLoader)
        ? new SpringTransactionHooks()
        : None.INSTANCE;
  }

  /**
   * If a transaction is active now (a real one, whose rollback undoes the writes made in it),
   * arranges for {@code completion} to be called once with its outcome. A transaction that the
   * guarded method itself starts later is not seen here: it has ended when the method returns.
   *
   * @return false if no transaction is active: nothing was registered
   */
  default boolean onCompletion(Consumer<Outcome> completion) {
    return onCompletion(completion, () -> {});
  }

  /**
   * As {@link #onCompletion(Consumer)}, and calls {@code suspended} on the transaction's thread
   * each time the transaction is suspended (a transaction of its own begins, {@code REQUIRES_NEW}
   * or {@code NOT_SUPPORTED}, or one of another transaction manager), before that transaction
   * begins: writes made until the matching resume belong to another transaction, which may commit
   * when this one rolls back.
   *
   * @return false if no transaction is active: nothing was registered
   */
  boolean onCompletion(Consumer<Outcome> completion, Runnable suspended);

  /**
   * Whether a transaction may be active now that {@link #onCompletion} cannot follow: transaction
   * synchronization is off while transactional resources are bound to the thread (a transaction
   * manager set to {@code SYNCHRONIZATION_NEVER}, which still binds its connection or session). A
   * write's end cannot then wait for the commit: a remove must not take its key's copy.
   */
  boolean unfollowedTransactionPossible();

  /**
   * Arranges for {@code released} to run, on another thread, once the transaction whose resources
   * are bound to this thread now has ended (committed or rolled back) and its manager has released
   * them: for a write whose commit {@link #onCompletion} cannot wait for (one made in an {@code
   * afterCommit}, or while {@link #unfollowedTransactionPossible}).
   *
   * @return false if no transaction's resources are bound now: nothing was arranged
   */
  boolean whenResourcesReleased(Runnable released);

  /** Work a transaction does once, before it commits. */
  interface BeforeCommit {
    /**
     * Called before the commit; throwing rolls the transaction back.
     *
     * @throws RuntimeException to roll back
     */
    void beforeCommit();

    /**
     * Called before the transaction completes, after every {@link #beforeCommit} of the commit
     * (also before a rollback), even when the work was registered too late for {@link
     * #beforeCommit}: inside another synchronization's {@code beforeCommit}. Spring logs what it
     * throws and goes on; it cannot roll back.
     */
    default void beforeCompletion() {}
  }

  /**
   * The object of {@code owner} in the transaction active now, created by {@code create} and called
   * before that transaction commits on first use; null if no real transaction is active (as {@link
   * #onCompletion}). Suspended with its transaction: a transaction started inside (REQUIRES_NEW)
   * gets its own.
   */
  <B extends BeforeCommit> @Nullable B perTransaction(
      Object owner, Class<B> type, Supplier<B> create);

  /**
   * Checks when the context starts that a guarded add takes part in the caller's transaction.
   *
   * @throws IllegalStateException if the method starts a transaction of its own inside the
   *     caller's, so that the caller's rollback would abort an enter whose row was committed
   */
  void checkAddPropagation(String where, Method method, @Nullable Class<?> targetClass);

  /** No spring-tx: no transactions. */
  enum None implements TransactionHooks {
    INSTANCE;

    @Override
    public boolean onCompletion(Consumer<Outcome> completion, Runnable suspended) {
      return false;
    }

    @Override
    public boolean unfollowedTransactionPossible() {
      return false;
    }

    @Override
    public boolean whenResourcesReleased(Runnable released) {
      return false;
    }

    @Override
    public <B extends BeforeCommit> @Nullable B perTransaction(
        Object owner, Class<B> type, Supplier<B> create) {
      return null;
    }

    @Override
    public void checkAddPropagation(String where, Method method, @Nullable Class<?> targetClass) {}
  }
}
