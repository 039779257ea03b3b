package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The advice around guarded methods, and the adapter's half of the core's write protocol.
 *
 * <ul>
 *   <li><b>find</b>: a definite miss returns the absent value without calling the method (this
 *       advice runs before the transaction advice, so no transaction starts); otherwise the method
 *       runs, and an absent result is reported as a false positive.
 *   <li><b>add</b>: {@code beginEnter} before the method runs. The enter ends when the write's fate
 *       is known: {@code abort()} at once if the method reports that it created nothing; inside a
 *       transaction active at the call, {@code visible()} after commit, {@code abort()} after
 *       rollback ({@code afterCompletion}); without one, {@code visible()} when the method returns.
 *   <li><b>remove</b>: {@code beginLeave} before the method runs; {@code cancel()} at once if the
 *       method throws or reports that it removed nothing; otherwise {@code gone()} after the active
 *       transaction commits ({@code cancel()} if it rolls back or ends unknown), or when the method
 *       returns without one.
 * </ul>
 *
 * <p><b>Why no present key is reported absent.</b> The guard keeps every key whose enter or leave
 * has begun and not ended, and hands them to a rebuild's new filter itself; a key outside a
 * transition must be visible to the key scan whenever it is tracked. The calls above keep that: an
 * enter begins before the method can write the row, so no reader (and no scan) can see the row
 * before its fingerprint is in, and it stays in flight until the row is visible to everyone (after
 * commit) or certainly never will be (rollback, "nothing created"). A leave begins before the
 * method can delete the row and ends with {@code gone()} only once the delete is committed; until
 * then the fingerprint stays, also in a filter that a rebuild swaps in meanwhile. An abort happens
 * only where the key certainly did not become visible through this write: the method said it
 * created nothing, or the transaction the write belongs to rolled back (an add whose method starts
 * a transaction of its own inside the caller's is rejected at startup, see {@link
 * TransactionHooks#checkAddPropagation}).
 *
 * <p><b>Unknown outcomes never abort.</b> An add that throws outside a transaction may have written
 * its row (a statement that failed after it was applied, a commit that failed in the method's own
 * {@code @Transactional}), so its enter ends {@code visible()}: if the row does not exist, the key
 * keeps one spare fingerprint (a false positive) until a rebuild, which scans only what exists. It
 * does not mark the guard stale: a spare fingerprint cannot make another key absent, because a
 * fingerprint is removed only by {@code gone()} after a reported removal, which needs the key to
 * exist and pairs with the copy of the incarnation that does; and marking stale on every failed
 * insert (a duplicate key, commonly) would turn the guard off and rescan the store each time. A
 * transaction that ends {@code STATUS_UNKNOWN} does mark it stale, after {@code visible()}: that is
 * rare, and it may leave many writes in doubt. A remove whose outcome is unknown is cancelled: the
 * key stays tracked, a spare fingerprint at worst.
 *
 * <p>A find of a repository declared with {@code @CuckooGuarded(entity = …)} asks
 * cuckoo-guard-hibernate's guard of the entity instead of a guard bean; Hibernate follows that
 * entity's writes.
 *
 * <p>When a find cannot compute its key (the expression fails, the value is null or of an
 * unsupported type) it runs the method: slower, never wrong (logged once per method). An add that
 * cannot compute its key throws before the method runs, since running it would make a key visible
 * that the guard does not know. A remove that cannot compute its key removes nothing (a spare
 * fingerprint). Thread-safe.
 */
public final class GuardInterceptor implements MethodInterceptor {

  private static final System.Logger LOG = System.getLogger(GuardInterceptor.class.getName());

  private final GuardOperationSource operations;
  private final GuardRegistry registry;
  private final TransactionHooks transactions;

  /** Operations whose key failed to evaluate at least once: warned once each. */
  private final Set<GuardOperation> warned = ConcurrentHashMap.newKeySet();

  GuardInterceptor(
      GuardOperationSource operations, GuardRegistry registry, TransactionHooks transactions) {
    this.operations = operations;
    this.registry = registry;
    this.transactions = transactions;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Class<?> targetClass = target == null ? null : ClassUtils.getUserClass(target);
    GuardOperation operation = operations.getOperation(invocation.getMethod(), targetClass);
    if (operation == null) {
      return invocation.proceed();
    }
    EntityGuardLookup.EntityGuard entity = operation.entity();
    if (entity != null) {
      return entityFind(invocation, operation, entity);
    }
    GuardHandle guard = registry.handle(operation.guardName());
    return switch (operation.kind()) {
      case FIND -> find(invocation, operation, guard);
      case ADD -> add(invocation, operation, guard);
      case REMOVE -> remove(invocation, operation, guard);
    };
  }

  private @Nullable Object find(
      MethodInvocation invocation, GuardOperation operation, GuardHandle guard) throws Throwable {
    Object key = keyOrNull(invocation, operation, guard);
    if (key == null) {
      return invocation.proceed();
    }
    CuckooGuard<Object> filter = guard.guard();
    if (!filter.mightContain(key)) {
      return operation.requireAbsent().value();
    }
    boolean filterAnswered = !filter.isPassThrough();
    Object result = invocation.proceed();
    if (filterAnswered) {
      operation.requireAbsent().whenAbsent(result, () -> filter.reportFalsePositive(key));
    }
    return result;
  }

  /**
   * A find that asks cuckoo-guard-hibernate's guard of an entity. No false positive is reported
   * here: Hibernate reports those of the finds that reach {@code Session.find}.
   */
  private @Nullable Object entityFind(
      MethodInvocation invocation, GuardOperation operation, EntityGuardLookup.EntityGuard entity)
      throws Throwable {
    Object id = keyOrNull(invocation, operation, operation.guardName(), value -> value);
    if (id == null) {
      return invocation.proceed();
    }
    boolean mightContain;
    try {
      mightContain = entity.mightContain(id);
    } catch (RuntimeException ex) {
      LOG.log(
          Level.WARNING,
          () ->
              "@GuardedFind on "
                  + operation.method()
                  + ": the guard of "
                  + entity.describe()
                  + " could not answer ("
                  + ex
                  + "); the call runs unguarded",
          ex);
      mightContain = true;
    }
    return mightContain ? invocation.proceed() : operation.requireAbsent().value();
  }

  private @Nullable Object add(
      MethodInvocation invocation, GuardOperation operation, GuardHandle guard) throws Throwable {
    Object value;
    try {
      value = operation.key().resolve(invocation, registry.beanResolver());
    } catch (RuntimeException ex) {
      throw new IllegalStateException(
          "@GuardedAdd on "
              + operation.method()
              + ": "
              + operation.key().description()
              + " failed to evaluate, so the key cannot enter guard '"
              + guard.name()
              + "' before the write; the method was not called",
          ex);
    }
    Object key =
        guard.toKey(
            Objects.requireNonNull(
                value,
                () ->
                    "@GuardedAdd on "
                        + operation.method()
                        + ": "
                        + operation.key().description()
                        + " is null; an add happens before the write, so the "
                        + "key must be known before the method runs (assign the id before saving); the method was "
                        + "not called"));
    Enter enter = new Enter(guard, guard.guard().beginEnter(key));
    boolean inTransaction;
    try {
      inTransaction = transactions.onCompletion(enter::completed);
    } catch (RuntimeException ex) {
      enter.abort(); // the method did not run: nothing became visible
      throw ex;
    }
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      if (!inTransaction) {
        enter.visible(); // the write may have happened: never abort an unknown outcome
      }
      throw ex;
    }
    if (operation.requireOutcome().definitelyNothingDone(result)) {
      enter.abort();
    } else if (!inTransaction) {
      enter.visible();
    }
    return result;
  }

  private @Nullable Object remove(
      MethodInvocation invocation, GuardOperation operation, GuardHandle guard) throws Throwable {
    Object key = keyOrNull(invocation, operation, guard);
    if (key == null) {
      return invocation.proceed();
    }
    Leave leave = new Leave(guard, guard.guard().beginLeave(key));
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      leave.cancel();
      throw ex;
    }
    if (!operation.requireOutcome().definitelyDone(result)) {
      leave.cancel();
      return result;
    }
    boolean inTransaction;
    try {
      inTransaction = transactions.onCompletion(leave::completed);
    } catch (RuntimeException ex) {
      leave.cancel();
      throw ex;
    }
    if (!inTransaction) {
      leave.gone();
    }
    return result;
  }

  /**
   * The key of a find or a remove, or null if there is none: the key is null (the method deals with
   * that), or it could not be computed (logged). Never throws.
   */
  private @Nullable Object keyOrNull(
      MethodInvocation invocation, GuardOperation operation, GuardHandle guard) {
    return keyOrNull(invocation, operation, "guard '" + guard.name() + "'", guard::toKey);
  }

  private @Nullable Object keyOrNull(
      MethodInvocation invocation,
      GuardOperation operation,
      String guard,
      UnaryOperator<Object> toKey) {
    try {
      Object value = operation.key().resolve(invocation, registry.beanResolver());
      return value == null ? null : toKey.apply(value);
    } catch (RuntimeException ex) {
      boolean first = warned.add(operation);
      LOG.log(
          first ? Level.WARNING : Level.DEBUG,
          () ->
              operation.kind().annotation()
                  + " on "
                  + operation.method()
                  + ": "
                  + operation.key().description()
                  + " gave no key for "
                  + guard
                  + " ("
                  + ex
                  + "); the call runs "
                  + "unguarded"
                  + (first ? " (logged once per method; later failures at DEBUG)" : ""),
          first ? ex : null);
      return null;
    }
  }

  private static void safely(GuardHandle guard, String what, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException ex) {
      LOG.log(Level.ERROR, () -> "Guard '" + guard.name() + "': " + what + " failed", ex);
    }
  }

  /**
   * One enter in flight, ended once by whichever comes first of the method's "nothing created", its
   * return, and the transaction's completion (which may run on another thread).
   */
  private static final class Enter {
    private final GuardHandle guard;
    private final PendingEnter<Object> pending;

    Enter(GuardHandle guard, PendingEnter<Object> pending) {
      this.guard = guard;
      this.pending = pending;
    }

    synchronized void visible() {
      if (!pending.isDone()) {
        safely(guard, "visible() of an enter", pending::visible);
      }
    }

    synchronized void abort() {
      if (!pending.isDone()) {
        safely(guard, "abort() of an enter", pending::abort);
      }
    }

    void completed(TransactionHooks.Outcome outcome) {
      switch (outcome) {
        case COMMITTED -> visible();
        case ROLLED_BACK -> abort();
        case UNKNOWN -> {
          visible();
          guard
              .guard()
              .markStale(
                  "a transaction with a guarded add of "
                      + pending.key()
                      + " ended in an unknown state");
        }
      }
    }
  }

  /**
   * One leave in flight, ended once: {@code gone()} after a committed removal, else {@code
   * cancel()}.
   */
  private static final class Leave {
    private final GuardHandle guard;
    private final PendingLeave<Object> pending;

    Leave(GuardHandle guard, PendingLeave<Object> pending) {
      this.guard = guard;
      this.pending = pending;
    }

    synchronized void gone() {
      if (!pending.isDone()) {
        safely(guard, "gone() of a leave", pending::gone);
      }
    }

    synchronized void cancel() {
      if (!pending.isDone()) {
        safely(guard, "cancel() of a leave", pending::cancel);
      }
    }

    void completed(TransactionHooks.Outcome outcome) {
      if (outcome == TransactionHooks.Outcome.COMMITTED) {
        gone();
      } else {
        cancel();
      }
    }
  }
}
