package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The advice around guarded methods.
 *
 * <ul>
 *   <li><b>find</b>: a definite miss returns the absent value without calling the method (this
 *       advice runs before the transaction advice, so no transaction starts); otherwise the method
 *       runs, and an absent result is reported as a false positive.
 *   <li><b>add</b>: {@code keyEntered} before the method runs; undone once, if the active
 *       transaction rolls back or the method reports it created nothing.
 *   <li><b>remove</b>: the method runs; if it reports a removal, {@code keyLeft} after the active
 *       transaction commits, or at once without one.
 * </ul>
 *
 * <p>A find of a repository declared with {@code @CuckooGuarded(entity = …)} asks hibernate-adapter's
 * guard of the entity instead of a guard bean; Hibernate follows that entity's writes.
 *
 * <p>When a find cannot compute its key (the expression fails, the value is null or of an
 * unsupported type) it runs the method: slower, never wrong. An add that cannot compute its key
 * throws before the method runs, since running it would make a key visible that the guard does
 * not know. A remove that cannot compute its key removes nothing (a leak). Thread-safe.
 */
public final class GuardInterceptor implements MethodInterceptor {

  private static final System.Logger LOG = System.getLogger(GuardInterceptor.class.getName());

  private final GuardOperationSource operations;
  private final GuardRegistry registry;
  private final TransactionHooks transactions;

  GuardInterceptor(GuardOperationSource operations, GuardRegistry registry, TransactionHooks transactions) {
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

  private @Nullable Object find(MethodInvocation invocation, GuardOperation operation, GuardHandle guard)
      throws Throwable {
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
   * A find that asks hibernate-adapter's guard of an entity. No false positive is reported here:
   * Hibernate reports those of the finds that reach {@code Session.find}.
   */
  private @Nullable Object entityFind(
      MethodInvocation invocation, GuardOperation operation, EntityGuardLookup.EntityGuard entity) throws Throwable {
    Object id = keyOrNull(invocation, operation, operation.guardName(), value -> value);
    if (id == null) {
      return invocation.proceed();
    }
    boolean mightContain;
    try {
      mightContain = entity.mightContain(id);
    } catch (RuntimeException ex) {
      LOG.log(Level.WARNING, () -> "@GuardedFind on " + operation.method() + ": the guard of "
          + entity.describe() + " could not answer (" + ex + "); the call runs unguarded", ex);
      mightContain = true;
    }
    return mightContain ? invocation.proceed() : operation.requireAbsent().value();
  }

  private @Nullable Object add(MethodInvocation invocation, GuardOperation operation, GuardHandle guard)
      throws Throwable {
    Object value;
    try {
      value = operation.key().resolve(invocation, registry.beanResolver());
    } catch (RuntimeException ex) {
      throw new IllegalStateException("@GuardedAdd on " + operation.method() + ": " + operation.key().description()
          + " failed to evaluate, so the key cannot enter guard '" + guard.name()
          + "' before the write; the method was not called", ex);
    }
    Object key = guard.toKey(Objects.requireNonNull(value, () -> "@GuardedAdd on " + operation.method()
        + ": " + operation.key().description() + " is null; an add happens before the write, so the "
        + "key must be known before the method runs (assign the id before saving); the method was "
        + "not called"));
    WriteJournal.Write write = guard.journal().open(key);
    Undo undo = new Undo(guard, write, key);
    boolean entered = false;
    boolean inTransaction;
    try {
      write.deliver(guard.guard(), false, () -> guard.guard().keyEntered(key));
      entered = true;
      inTransaction = transactions.afterRollback(undo, write::close);
    } catch (RuntimeException ex) {
      if (entered) {
        undo.run();
      }
      write.close();
      throw ex;
    }
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      if (!inTransaction) {
        // No transaction, and the write may have happened: keep the add (a leak at worst).
        write.close();
      }
      throw ex;
    }
    if (operation.requireOutcome().definitelyNothingDone(result)) {
      undo.run();
    }
    if (!inTransaction) {
      write.close(); // after the undo: a rebuild must see an undo while the write is in flight
    }
    return result;
  }

  private @Nullable Object remove(MethodInvocation invocation, GuardOperation operation, GuardHandle guard)
      throws Throwable {
    Object key = keyOrNull(invocation, operation, guard);
    if (key == null) {
      return invocation.proceed();
    }
    WriteJournal.Write write = guard.journal().open(key);
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      write.close();
      throw ex;
    }
    if (!operation.requireOutcome().definitelyDone(result)) {
      write.close();
      return result;
    }
    transactions.afterCommit(
        () -> safely(guard, "keyLeft", () -> write.deliver(guard.guard(), false, () -> guard.guard().keyLeft(key))),
        write::close);
    return result;
  }

  /**
   * The key of a find or a remove, or null if there is none: the key is null (the method deals
   * with that), or it could not be computed (logged). Never throws.
   */
  private @Nullable Object keyOrNull(MethodInvocation invocation, GuardOperation operation, GuardHandle guard) {
    return keyOrNull(invocation, operation, "guard '" + guard.name() + "'", guard::toKey);
  }

  private @Nullable Object keyOrNull(
      MethodInvocation invocation, GuardOperation operation, String guard, UnaryOperator<Object> toKey) {
    try {
      Object value = operation.key().resolve(invocation, registry.beanResolver());
      return value == null ? null : toKey.apply(value);
    } catch (RuntimeException ex) {
      LOG.log(Level.WARNING, () -> operation.kind().annotation() + " on " + operation.method() + ": "
          + operation.key().description() + " gave no key for " + guard + " ("
          + ex + "); the call runs unguarded", ex);
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

  /** Undoes one add, at most once, whichever of rollback and "nothing created" comes first. */
  private static final class Undo implements Runnable {
    private final GuardHandle guard;
    private final WriteJournal.Write write;
    private final Object key;
    private final AtomicBoolean done = new AtomicBoolean();

    Undo(GuardHandle guard, WriteJournal.Write write, Object key) {
      this.guard = guard;
      this.write = write;
      this.key = key;
    }

    @Override
    public void run() {
      if (done.compareAndSet(false, true)) {
        safely(guard, "undo of keyEntered", () -> write.deliver(guard.guard(), true, () -> guard.guard().keyLeft(key)));
      }
    }
  }
}
