package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
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
 *       Where the row commits later than that, without a callback (the add was made in an {@code
 *       afterCommit}, after its transaction's commit; or in a transaction whose end cannot be
 *       followed), {@code visible()} once the transaction's manager released its resources ({@link
 *       TransactionHooks#whenResourcesReleased}), so the key is in flight until its row committed.
 *   <li><b>remove</b>: {@code beginLeave} before the method runs; {@code cancel()} at once if the
 *       method throws or reports that it removed nothing; otherwise {@code gone()} after the active
 *       transaction commits ({@code cancel()} if it rolls back or ends unknown), or when the method
 *       returns without one; {@code cancel()} when the method returns in a transaction whose end
 *       cannot be followed (synchronization off but a transaction's resources bound, {@link
 *       TransactionHooks#unfollowedTransactionPossible}).
 *   <li><b>add or remove returning a {@code CompletableFuture} or {@code CompletionStage}</b>: the
 *       same, except that the enter or leave ends only once both the stage has completed and the
 *       transaction active when the method returned (if any) has ended, and that neither the
 *       caller's rollback (an add) nor its commit alone (a remove) decides the outcome: the write
 *       may have run on another thread, outside that transaction ({@link #addLater}, {@link
 *       #removeLater}).
 *   <li><b>add declared synchronous whose result, at run time, is a write still under way</b> (a
 *       {@code Future} not done, from a method declared {@code Object}, or an {@code @Async} method
 *       whose async advice does not run outside this one): a {@code CompletionStage} ends as a
 *       declared one does, a plain {@code Future} never ends its enter, the key in flight for good
 *       ({@link #addStillRunning}). A remove cannot get there: its declared type must report an
 *       outcome ({@code boolean}, a count, or {@code void} with {@code throwsIfAbsent}), and a
 *       future it might return never reads as "removed", so its leave is cancelled (the key keeps
 *       its fingerprint).
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
 * <p>A find whose key is of a kind the guard cannot answer for ({@link KeyKinds}: a {@code String}
 * on a guard of {@code Long} ids, which the database would convert) runs the method without asking
 * the guard; a remove of such a key runs without a leave, since no enter of that kind exists for it
 * to pair (the row's fingerprint stays: a false positive until the next rebuild).
 *
 * <p>When a find cannot compute its key (the expression fails, the value is null or of an
 * unsupported type) it runs the method: slower, never wrong (logged once per method). An add that
 * cannot compute its key throws before the method runs, since running it would make a key visible
 * that the guard does not know. A remove that cannot compute its key removes nothing (a spare
 * fingerprint). Thread-safe.
 */
public final class GuardInterceptor implements MethodInterceptor {

  private static final System.Logger LOG = System.getLogger(GuardInterceptor.class.getName());

  private final AtomicBoolean unfollowedWarned = new AtomicBoolean();
  private final AtomicBoolean unfollowedAddWarned = new AtomicBoolean();

  private final GuardOperationSource operations;
  private final GuardRegistry registry;
  private final TransactionHooks transactions;

  /** Operations whose key failed to evaluate at least once: warned once each. */
  private final Set<GuardOperation> warned = ConcurrentHashMap.newKeySet();

  /** Adds that returned a plain Future still running at their return: warned once each. */
  private final Set<GuardOperation> heldForGood = ConcurrentHashMap.newKeySet();

  /** Operations that passed a key of a kind the guard cannot answer for: warned once each. */
  private final Set<GuardOperation> kindWarned = ConcurrentHashMap.newKeySet();

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
    if (!guard.answers(key)) {
      kindNotAnswered(operation, guard, key, "the call runs unguarded");
      return invocation.proceed(); // "might contain": the guard is not asked
    }
    CuckooGuard<Object> filter = guard.guard();
    if (!guard.mightContain(key)) {
      return operation.requireAbsent().value();
    }
    boolean filterAnswered = !filter.isPassThrough();
    Object result = invocation.proceed();
    if (filterAnswered) {
      // With a group, "might contain" may have been the group's (no lease yet): a false positive
      // of the filter only if the filter itself has the key.
      boolean local = guard.replicated() == null;
      operation
          .requireAbsent()
          .whenAbsent(
              result,
              () -> {
                if (local || filter.mightContain(key)) {
                  filter.reportFalsePositive(key);
                }
              });
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
    if (operation.completesLater()) {
      return addLater(invocation, operation, guard, key);
    }
    ReplicatedGuard<Object> group = guard.replicated();
    Enter enter = new Enter(guard, guard.guard().beginEnter(key), transactions);
    boolean inTransaction;
    try {
      if (group != null && operation.mayReturnAFuture()) {
        // its result may be a running future whose write commits on another thread before the
        // caller's commit: replicated before the method, as addLater does, not in the batch
        replicate(List.of(enter));
        inTransaction =
            transactions.onCompletion(enter::completed, () -> suspendedDuringTheCall(enter));
      } else {
        inTransaction =
            group == null
                ? transactions.onCompletion(enter::completed, () -> suspendedDuringTheCall(enter))
                : enlist(enter, group);
      }
    } catch (RuntimeException ex) {
      enter.abort(); // the method did not run: nothing became visible
      throw ex;
    }
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      enter.returned();
      if (!inTransaction) {
        visibleAfterTheCall(enter, guard); // the write may have happened: never abort an unknown
      }
      throw ex;
    }
    enter.returned();
    if (stillRunning(result)) {
      return addStillRunning(invocation, operation, guard, enter, inTransaction, key, result);
    }
    if (operation.requireOutcome().definitelyNothingDone(result)) {
      enter.abort();
    } else if (!inTransaction) {
      visibleAfterTheCall(enter, guard);
    }
    return result;
  }

  /**
   * The caller's transaction was suspended while the guarded method ran (it began a transaction of
   * its own, inside the body or on the method with another transaction manager): the write may be
   * committed by that transaction even if the caller's rolls back, so the enter must not be aborted
   * then ({@code OwnTransactionAddTest}); it still ends at the caller's completion, since the write
   * may as well belong to the caller's transaction. A clustered enter still in the transaction's
   * batch is replicated now, on the suspending thread, before the inner transaction begins and so
   * before its commit; if that fails it is entered late ({@link Enter#visible}).
   */
  private void suspendedDuringTheCall(Enter enter) {
    if (!enter.suspended() || !enter.unsent()) {
      return;
    }
    try {
      replicate(List.of(enter));
    } catch (IllegalStateException ex) {
      LOG.log(
          Level.ERROR,
          "Guard '"
              + enter.guard.name()
              + "': a guarded add began a transaction of its own, and its enter could not be sent"
              + " to the other instances before; it is entered on them late",
          ex);
    }
  }

  /**
   * Ends an add made outside a transaction that can be followed: now, or, if a transaction may be
   * active that cannot be followed (synchronization off, its resources bound), once that
   * transaction's resources are released. Its row is visible to others only from that commit on,
   * and a rebuild scanning before it would not see the row: until then the key stays in flight, so
   * the rebuild keeps its fingerprint ({@code LateAddTest}).
   */
  private void visibleAfterTheCall(Enter enter, GuardHandle guard) {
    if (!transactions.unfollowedTransactionPossible()
        || !transactions.whenResourcesReleased(enter::visible)) {
      enter.visible();
      return;
    }
    if (unfollowedAddWarned.compareAndSet(false, true)) {
      LOG.log(
          Level.WARNING,
          () ->
              "Guard '"
                  + guard.name()
                  + "': a guarded add ran in a transaction without transaction synchronization (a"
                  + " transaction manager set to SYNCHRONIZATION_NEVER?); its key stays in flight"
                  + " until the transaction's resources are released. Logged once.");
    }
  }

  private @Nullable Object remove(
      MethodInvocation invocation, GuardOperation operation, GuardHandle guard) throws Throwable {
    Object key = keyOrNull(invocation, operation, guard);
    if (key == null) {
      return invocation.proceed();
    }
    if (!guard.holds(key)) {
      // No enter of this kind was made, so no leave can pair one: the row's fingerprint (under the
      // kind it was given) stays, a false positive until the next rebuild.
      kindNotAnswered(operation, guard, key, "the guard keeps its fingerprints");
      return invocation.proceed();
    }
    ReplicatedGuard<Object> group = guard.replicated();
    Leave leave;
    if (group == null) {
      PendingLeave<Object> pending = guard.guard().beginLeave(key);
      leave = new Leave(guard, pending::gone, pending::cancel);
    } else {
      // Announced on every instance (or waited out) before the method can delete the row; a
      // failure throws here, before the method ran.
      ReplicatedGuard.Leave<Object> replicated = beginLeave(group, guard, key);
      leave = new Leave(guard, replicated::gone, replicated::cancel);
    }
    if (operation.completesLater()) {
      return removeLater(invocation, operation, leave, key);
    }
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
      if (transactions.unfollowedTransactionPossible()) {
        // the delete may belong to a transaction whose end cannot be awaited (synchronization
        // off): it may still roll back, and until it commits other readers see the row. Keep the
        // copy (a spare fingerprint, a false positive until the next rebuild), never take it.
        leave.cancel();
        if (unfollowedWarned.compareAndSet(false, true)) {
          LOG.log(
              Level.WARNING,
              () ->
                  "Guard '"
                      + guard.name()
                      + "': a guarded remove ran in a transaction without transaction"
                      + " synchronization (a transaction manager set to SYNCHRONIZATION_NEVER?);"
                      + " its commit cannot be awaited, so the key's fingerprint is kept (a false"
                      + " positive) until the next rebuild. Logged once.");
        }
      } else {
        leave.gone();
      }
    }
    return result;
  }

  /**
   * An add whose method returns a {@code CompletableFuture} or {@code CompletionStage}: its write
   * may run on another thread (an executor's {@code supplyAsync}) after the method returned, so the
   * enter stays in flight until both sides of the write have settled ({@link Settlement}):
   *
   * <ul>
   *   <li>the caller's side: the transaction active on the calling thread when the method returned
   *       has completed (after a commit that began before the write, once its resources are
   *       released), or, without one, the method returned; a write the method made on the calling
   *       thread belongs to that transaction;
   *   <li>the stage's side: the stage the method returned has completed.
   * </ul>
   *
   * <p>Then the enter is aborted if the stage's value says that nothing was created ({@link
   * WriteOutcome#definitelyNothingDone}, as the synchronous path reads a return value), and made
   * visible otherwise: also when the stage completed exceptionally or the method threw (the write
   * may have happened), and also when the caller's transaction rolled back, since the write made on
   * another thread is not part of it and may have committed on its own (a spare fingerprint at
   * worst, if it was the caller's). A caller's transaction that ends in an unknown state marks the
   * guard stale, as on the synchronous path.
   *
   * <p><b>Why no present key is reported absent.</b> The enter begins before the method runs, so no
   * write it makes or starts can be visible before the fingerprint is in; until both sides have
   * settled the key is in flight, and every rebuild keeps it. A future that completes after the
   * caller's transaction committed or rolled back keeps the key in flight until it completes; one
   * that completes before the caller's commit keeps it until the commit. The write is visible to a
   * later key scan by the time both have happened, for a stage that completes once its write is
   * committed, as {@code supplyAsync} of a write does (in auto-commit, or in a transaction of its
   * own: a {@code @Transactional} method or {@code TransactionTemplate.execute} returns after the
   * commit). That is the contract of such a method: a stage it completes earlier (inside the
   * executor's transaction before its commit, an {@code orTimeout}, a {@code cancel} of its own)
   * cannot be told from a finished write. (Following the transaction of the thread that completed
   * the stage was tried and dropped: a stage completed before the interceptor attaches to it runs
   * the callback on the calling thread, which cannot see that transaction; 4 of 20 such keys were
   * still lost.) The caller gets a stage that completes after this stage's side has settled ({@link
   * #handOver}); cancelling it does not touch the method's stage (a {@code cancel} would not stop a
   * write under way, only end the enter early). Clustered, the enter is replicated before the
   * method runs, not in the transaction's batch at its commit: the write on the executor may become
   * visible before that commit.
   */
  private @Nullable Object addLater(
      MethodInvocation invocation, GuardOperation operation, GuardHandle guard, Object key)
      throws Throwable {
    Enter enter = new Enter(guard, guard.guard().beginEnter(key), transactions);
    Settlement end = endOfAnAdd(enter, guard);
    if (guard.replicated() != null) {
      try {
        replicate(List.of(enter)); // before the method: its write may commit on another thread
      } catch (RuntimeException ex) {
        enter.abort(); // the method did not run; replicate() aborted the enter already
        throw ex;
      }
    }
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      settleCallerSide(end, false, key);
      end.settle(Settlement.Side.STAGE, false, null); // a write may have started: never abort
      throw ex;
    }
    settleCallerSide(end, false, key);
    if (!(result instanceof CompletionStage<?> stage)) {
      end.settle(Settlement.Side.STAGE, false, null); // no stage: as a synchronous null
      return result;
    }
    WriteOutcome outcome = operation.requireOutcome();
    // completed exceptionally: unknown, the write may have happened, so never abort then
    return handOver(
        stage.whenComplete(
            (value, failure) ->
                end.settle(
                    Settlement.Side.STAGE,
                    failure == null && outcome.definitelyNothingDone(value),
                    null)));
  }

  /**
   * The end of an add that completes later: aborted if a side says that nothing was created,
   * visible otherwise, the guard marked stale if a side gave a reason.
   */
  private static Settlement endOfAnAdd(Enter enter, GuardHandle guard) {
    return new Settlement(
        (nothingDone, stale) -> {
          if (nothingDone) {
            enter.abort();
            return;
          }
          enter.visible();
          if (stale != null) {
            guard.guard().markStale(stale);
          }
        });
  }

  /**
   * A remove whose method returns a {@code CompletableFuture} or {@code CompletionStage}. The leave
   * began before the method ran; it ends {@code gone()} only when the stage's value says the key
   * was removed ({@link WriteOutcome#definitelyDone}) and the caller's transaction active when the
   * method returned, if any, committed (the sides of {@link #addLater}): the delete may be the
   * caller's. Anything else cancels it (the method threw, the stage completed exceptionally or said
   * "not removed", the caller's transaction rolled back or cannot be followed): the key keeps its
   * fingerprint, a false positive at worst.
   *
   * <p><b>Why no present key is reported absent.</b> The fingerprint is taken only after both the
   * stage completed and the caller's transaction committed, so, for a stage that completes once its
   * delete is committed (the contract of {@link #addLater}), only after the delete is visible to
   * every reader and to any key scan; until then the leave keeps it, also in a filter a rebuild
   * swaps in meanwhile.
   */
  private @Nullable Object removeLater(
      MethodInvocation invocation, GuardOperation operation, Leave leave, Object key)
      throws Throwable {
    Settlement end =
        new Settlement(
            (notRemoved, stale) -> {
              if (notRemoved) {
                leave.cancel();
              } else {
                leave.gone();
              }
            });
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable ex) {
      leave.cancel();
      throw ex;
    }
    settleCallerSide(end, true, key);
    if (!(result instanceof CompletionStage<?> stage)) {
      end.settle(Settlement.Side.STAGE, true, null); // no stage says nothing: keep the key
      return result;
    }
    WriteOutcome outcome = operation.requireOutcome();
    return handOver(
        stage.whenComplete(
            (value, failure) ->
                end.settle(
                    Settlement.Side.STAGE,
                    failure != null || !outcome.definitelyDone(value),
                    null)));
  }

  /**
   * The stage the caller gets: one more stage after {@code settled} (the stage that ran the end of
   * the write, which nobody else holds), with its result. Not {@code settled} itself: a {@code
   * CompletableFuture} completed early (the caller's {@code cancel}, {@code complete}, {@code
   * orTimeout}) skips its {@code whenComplete} action, so the end of the write would never run and
   * the key would stay in flight for good ({@code AsyncAddTest}, "after the caller cancelled").
   */
  private static CompletionStage<?> handOver(CompletionStage<?> settled) {
    return settled.whenComplete((value, failure) -> {});
  }

  /**
   * Settles the caller's side of a write that ends later once no transaction of the calling thread
   * may still hold the write uncommitted: at the completion of the active one, once the resources
   * of one that cannot be followed are released, or now. For a remove ({@code remove}), only a
   * commit that followed the delete settles it as done; anything else as "not removed". Never
   * throws: if arranging that fails, the side settles now, as an unknown (an add visible, a remove
   * kept).
   */
  private void settleCallerSide(Settlement end, boolean remove, Object key) {
    try {
      if (transactions.onCompletion(outcome -> settleAt(transactions, end, remove, outcome, key))) {
        return;
      }
    } catch (RuntimeException ex) {
      callerSideUnknown(end, remove, key, ex);
      return;
    }
    settleOutsideATransaction(end, remove, key);
  }

  /**
   * Settles the caller's side of a write that ends later and that no followed transaction of the
   * calling thread holds: once the resources of a transaction that cannot be followed are released
   * (an add; a remove settles as "not removed", its commit cannot be awaited), or now. Never
   * throws.
   */
  private void settleOutsideATransaction(Settlement end, boolean remove, Object key) {
    Settlement.Side side = Settlement.Side.CALLER;
    try {
      if (transactions.unfollowedTransactionPossible()) {
        if (remove) {
          end.settle(side, true, null); // its commit cannot be awaited: keep the copy
          return;
        }
        if (transactions.whenResourcesReleased(() -> end.settle(side, false, null))) {
          return;
        }
      }
      end.settle(side, false, null);
    } catch (RuntimeException ex) {
      callerSideUnknown(end, remove, key, ex);
    }
  }

  private static void callerSideUnknown(
      Settlement end, boolean remove, Object key, RuntimeException ex) {
    LOG.log(
        Level.ERROR,
        () ->
            "Following the transaction of a guarded write of "
                + key
                + " that completes later failed; its end is taken as unknown",
        ex);
    end.settle(Settlement.Side.CALLER, remove, null);
  }

  /**
   * Settles the caller's side at the completion of its transaction: a remove as done only after a
   * commit; an add as created, after a commit that began before the write once the transaction's
   * resources are released, with a reason to mark the guard stale after an unknown end.
   */
  static void settleAt(
      TransactionHooks transactions,
      Settlement end,
      boolean remove,
      TransactionHooks.Outcome outcome,
      Object what) {
    Settlement.Side side = Settlement.Side.CALLER;
    if (remove) {
      end.settle(side, outcome != TransactionHooks.Outcome.COMMITTED, null);
      return;
    }
    switch (outcome) {
      case COMMITTED_BEFORE_THE_WRITE -> {
        // the write commits with the manager's cleanup: in flight until its resources are released
        if (!transactions.whenResourcesReleased(() -> end.settle(side, false, null))) {
          end.settle(side, false, null);
        }
      }
      case UNKNOWN ->
          end.settle(
              side,
              false,
              "a transaction with a guarded add of " + what + " ended in an unknown state");
      default -> end.settle(side, false, null);
    }
  }

  /**
   * Whether a synchronous add's result is a write still under way: a {@code Future} that is not
   * done, or a {@code CompletionStage} that is not a {@code Future} (whose completion cannot be
   * asked, only awaited).
   */
  private static boolean stillRunning(@Nullable Object result) {
    if (!(result instanceof Future<?> future)) {
      return result instanceof CompletionStage<?>;
    }
    try {
      return !future.isDone();
    } catch (RuntimeException ex) {
      // cannot be asked (isDone() of CompletableFuture.minimalCompletionStage() throws): a write
      // that may still be running; a stage is then followed until it completes, a plain Future
      // holds its key for good
      return true;
    }
  }

  /**
   * A guarded add declared synchronous (its return type is not {@code CompletableFuture} or {@code
   * CompletionStage}: {@code Object}, a plain {@code Future} of an {@code @Async} method, …) whose
   * result is, at run time, a write still under way ({@link #stillRunning}): the method started its
   * write on another thread and returned. Ending the enter now, as the synchronous path does, lets
   * a rebuild that scans before that write swap in a filter without the key ({@code
   * AsyncReturnedAtRunTimeTest}: 10 of 10 committed rows absent for each kind before this rule).
   *
   * <ul>
   *   <li>A {@code CompletionStage}: settled as {@link #addLater} settles a declared stage. The
   *       enter ends once both the stage has completed and the caller's side has settled (the
   *       caller's transaction, whose completion the enter follows already, now settles that side
   *       instead of ending the enter: {@link Enter#settleLater}). The caller gets the guard's own
   *       stage ({@link #handOver}) when the declared return type can hold it ({@code Object},
   *       {@code Future} do), so its {@code cancel} cannot end the enter early; otherwise it keeps
   *       the method's stage, and a stage the caller cancels cannot be told from a finished write:
   *       a {@code CancellationException} then leaves the key in flight for good, as a plain {@code
   *       Future} does (a caller's {@code complete} of that stage is outside the contract, as the
   *       method's own early completion is: see {@link #addLater}).
   *   <li>A plain {@code Future}: nothing tells the guard when its write ends, so the enter never
   *       ends ({@link Enter#holdForGood}): the key stays in flight, every rebuild keeps its
   *       fingerprint (a false positive, one in-flight entry per call), warned once per method.
   * </ul>
   *
   * <p><b>Why no present key is reported absent.</b> The enter began before the method ran, so the
   * write it started cannot be visible before the fingerprint is in; from then on the key is in
   * flight until the stage completed and the caller's transaction (if any) ended, which for a stage
   * that completes once its write is committed (the contract of {@link #addLater}) is after the row
   * is visible to any later key scan; for a plain {@code Future}, for good. A rollback of the
   * caller's transaction no longer aborts the enter: the write on the other thread is not part of
   * it (a spare fingerprint at worst). Clustered, an add whose declared type can hold a future
   * ({@link GuardOperation#mayReturnAFuture}) was replicated before the method ran; any other still
   * in the transaction's batch is replicated now, as early as the guard can know.
   */
  private @Nullable Object addStillRunning(
      MethodInvocation invocation,
      GuardOperation operation,
      GuardHandle guard,
      Enter enter,
      boolean inTransaction,
      Object key,
      @Nullable Object result) {
    if (guard.replicated() != null && enter.unsent()) {
      try {
        replicate(List.of(enter));
      } catch (IllegalStateException ex) {
        // replicate() aborted the local enter, and the write is under way: a local enter of its
        // own, never ended, keeps the key here (a false positive); a stage's end enters it on the
        // other instances late (Enter#visible), a plain Future's never does
        guard.guard().beginEnter(key);
        LOG.log(
            Level.ERROR,
            () ->
                "Guard '"
                    + guard.name()
                    + "': "
                    + operation.method()
                    + " returned a write still under way, and its enter could not be sent to the"
                    + " other instances; they may answer \"absent\" for "
                    + key
                    + " until the write has ended (for a plain Future, until their next rebuild)",
            ex);
      }
    }
    if (!(result instanceof CompletionStage<?> stage)) {
      enter.holdForGood();
      warnHeldForGood(operation, guard, "returned a Future that is still running");
      return result;
    }
    Settlement end = endOfAnAdd(enter, guard);
    enter.settleLater(end);
    if (!inTransaction) {
      settleOutsideATransaction(end, false, key);
    }
    WriteOutcome outcome = operation.requireOutcome();
    Class<?> declared = invocation.getMethod().getReturnType();
    if (declared.isAssignableFrom(CompletableFuture.class)) {
      return handOver(
          stage.whenComplete(
              (value, failure) ->
                  end.settle(
                      Settlement.Side.STAGE,
                      failure == null && outcome.definitelyNothingDone(value),
                      null)));
    }
    stage.whenComplete(
        (value, failure) -> {
          if (isCancellation(failure)) {
            // the caller's cancel of the method's own stage: its write may still be under way
            warnHeldForGood(operation, guard, "returned a stage that was then cancelled");
            return;
          }
          end.settle(
              Settlement.Side.STAGE, failure == null && outcome.definitelyNothingDone(value), null);
        });
    return result;
  }

  private static boolean isCancellation(@Nullable Throwable failure) {
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return t instanceof CancellationException;
  }

  /** Warns once per method that a guarded add left its key in flight for good, and what to do. */
  private void warnHeldForGood(GuardOperation operation, GuardHandle guard, String what) {
    if (heldForGood.add(operation)) {
      LOG.log(
          Level.WARNING,
          () ->
              "@GuardedAdd on "
                  + operation.method()
                  + " "
                  + what
                  + ", so guard '"
                  + guard.name()
                  + "' cannot see when its write ends. The key stays in flight for good: every"
                  + " rebuild keeps its fingerprint (a false positive, never a false negative),"
                  + " and each such call holds one in-flight entry until the application stops."
                  + " Fix: declare the return type CompletableFuture or CompletionStage (the guard"
                  + " then ends the write when the stage completes); for an @Async method, enable"
                  + " Spring's async advice in its default proxy mode (@EnableAsync), so that the"
                  + " guard runs on the executor's thread around the write and the method returns"
                  + " a completed Future; or make the method synchronous. Logged once per method.");
    }
  }

  /**
   * Makes a clustered enter known to the group before the key can become visible to any other
   * instance. In a transaction the enter joins the transaction's batch, which one round trip per
   * group replicates before the commit (a failure there rolls the transaction back); without one,
   * or once the batch was sent, it is replicated by itself now, before the method runs.
   *
   * <p>Why no instance answers "absent" for a key this add made visible: the row is visible to
   * other transactions only from the commit on (a row written without a transaction, from the
   * method's return on), and by then every other instance that can still answer "absent" applied
   * the begin or was waited out (ReplicatedGuard.replicate/beginEnter, the cluster package's
   * guarantee 1); until the end reaches it the key is in flight there, then tracked. Until the
   * batch is sent the key is in flight here only, and no one else can see the row yet.
   *
   * @return whether a transaction is active (the enter ends at its completion)
   */
  private boolean enlist(Enter enter, ReplicatedGuard<Object> group) {
    ClusterBatch batch =
        transactions.perTransaction(this, ClusterBatch.class, () -> new ClusterBatch(this));
    if (batch != null
        && transactions.onCompletion(enter::completed, () -> suspendedDuringTheCall(enter))) {
      if (!batch.add(enter)) {
        replicate(List.of(enter)); // the batch was sent already: by itself, now
      }
      return true;
    }
    replicate(List.of(enter)); // no transaction: by itself, now
    return false;
  }

  /**
   * Replicates {@code enters}, one round trip per group.
   *
   * @throws IllegalStateException if a group could not be made safe in time or the thread was
   *     interrupted; the enters of that group are aborted here and on every instance that applied
   *     them, and their keys must not become visible
   */
  void replicate(List<Enter> enters) {
    Map<ReplicatedGuard<Object>, List<Enter>> byGroup = new LinkedHashMap<>();
    for (Enter enter : enters) {
      ReplicatedGuard<Object> group = enter.guard.replicated();
      if (group != null) {
        byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(enter);
      }
    }
    IllegalStateException failure = null;
    for (Map.Entry<ReplicatedGuard<Object>, List<Enter>> e : byGroup.entrySet()) {
      List<Enter> batch = e.getValue();
      List<PendingEnter<Object>> begun = new ArrayList<>(batch.size());
      for (Enter enter : batch) {
        begun.add(enter.pending);
      }
      try {
        List<ReplicatedGuard.Enter<Object>> replicated = e.getKey().replicate(begun);
        for (int i = 0; i < batch.size(); i++) {
          batch.get(i).replicated(replicated.get(i));
        }
      } catch (InterruptedException | RuntimeException ex) {
        if (ex instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        for (Enter enter : batch) {
          enter.failed(); // replicate() aborted them here and on every instance that applied them
        }
        IllegalStateException f =
            new IllegalStateException(
                "Guard '"
                    + batch.get(0).guard.name()
                    + "': the other application instances did not acknowledge the guarded add of "
                    + batch.size()
                    + " key(s) (e.g. "
                    + batch.get(0).pending.key()
                    + "); the write must not commit",
                ex);
        if (failure == null) {
          failure = f;
        } else {
          failure.addSuppressed(f);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static ReplicatedGuard.Leave<Object> beginLeave(
      ReplicatedGuard<Object> group, GuardHandle guard, Object key) {
    try {
      return group.beginLeave(key);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "Guard '" + guard.name() + "': interrupted announcing the removal of " + key, ex);
    }
  }

  /**
   * The clustered enters of one transaction not sent yet; sent before its commit. Once sent
   * (sealed), later adds of the transaction are replicated by themselves.
   */
  static final class ClusterBatch implements TransactionHooks.BeforeCommit {
    private final GuardInterceptor interceptor;
    private final List<Enter> unsent = new ArrayList<>();
    private boolean sealed;

    ClusterBatch(GuardInterceptor interceptor) {
      this.interceptor = interceptor;
    }

    /** Queues {@code enter}; false if the batch was sent already (the caller sends it). */
    synchronized boolean add(Enter enter) {
      if (sealed) {
        return false;
      }
      unsent.add(enter);
      return true;
    }

    @Override
    public void beforeCommit() {
      interceptor.replicate(seal()); // throws: the transaction rolls back
    }

    /**
     * The batch registered during another synchronization's {@code beforeCommit} (a guarded add
     * made there): Spring did not call {@link #beforeCommit}, but calls this before the commit, so
     * the enters are still sent before the row is visible. Spring cannot roll back from here: an
     * enter that fails is aborted by {@code replicate} and entered late at the commit ({@link
     * Enter#visible}). Spring calls this before a rollback too, and nothing here tells the two
     * apart: a transaction rolled back with unsent enters sends them (one round trip per group, or
     * the group's wait if it cannot be made safe), and their aborts follow, paired. Safe either
     * way; the cost is the rollback's.
     */
    @Override
    public void beforeCompletion() {
      List<Enter> due = seal();
      if (due.isEmpty()) {
        return;
      }
      try {
        interceptor.replicate(due);
      } catch (IllegalStateException ex) {
        LOG.log(
            Level.ERROR,
            "Guarded adds of a transaction whose batch missed its beforeCommit callbacks could not"
                + " be sent before its completion either; if it commits, they are entered late,"
                + " after the commit",
            ex);
      }
    }

    /** Seals the batch and returns its enters still to send (not aborted meanwhile). */
    private synchronized List<Enter> seal() {
      sealed = true;
      List<Enter> due = new ArrayList<>();
      for (Enter enter : unsent) {
        if (enter.unsent()) { // not aborted meanwhile ("nothing created")
          due.add(enter);
        }
      }
      unsent.clear();
      return due;
    }
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

  /**
   * Logs once per method that a key of a kind the guard cannot answer for ({@link KeyKinds}) passed
   * the guard by.
   */
  private void kindNotAnswered(
      GuardOperation operation, GuardHandle guard, Object key, String consequence) {
    if (kindWarned.add(operation)) {
      LOG.log(
          Level.WARNING,
          () ->
              operation.kind().annotation()
                  + " on "
                  + operation.method()
                  + ": the key is a "
                  + key.getClass().getName()
                  + ", and guard '"
                  + guard.name()
                  + "' holds "
                  + guard.givenKinds()
                  + ". A database may convert one kind to the other (\"12\" to 12), so "
                  + consequence
                  + ". Map the key to the guard's key type in the key expression (logged once per"
                  + " method).");
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
   * return, and the transaction's completion (which may run on another thread). With a group it
   * ends through the replicated handle once the enter was replicated.
   */
  static final class Enter {
    final GuardHandle guard;
    final PendingEnter<Object> pending;
    private final TransactionHooks transactions;
    private ReplicatedGuard.@Nullable Enter<Object> replicated;

    /**
     * The end of an enter made late, before its row commits, by {@link #committedBeforeTheWrite}.
     */
    private @Nullable Runnable late;

    private boolean failed;
    private boolean aborted;
    private boolean returned;

    /** The transaction was suspended during the call: a rollback must not abort. */
    private boolean ownTransactionPossible;

    /**
     * Set when the method returned a write still under way: the transaction's completion settles
     * the caller's side of this instead of ending the enter ({@link #settleLater}).
     */
    private @Nullable Settlement later;

    /** The method returned a plain Future still running: the enter never ends. */
    private boolean held;

    Enter(GuardHandle guard, PendingEnter<Object> pending, TransactionHooks transactions) {
      this.guard = guard;
      this.pending = pending;
      this.transactions = transactions;
    }

    /**
     * From now on the completion of the caller's transaction settles the caller's side of {@code
     * end} rather than ending this enter; {@code end} ends it once its stage's side has settled
     * too. Called on the calling thread when the method returned, before that transaction can
     * complete.
     */
    synchronized void settleLater(Settlement end) {
      later = end;
    }

    /** The enter never ends: the key stays in flight for good (a false positive only). */
    synchronized void holdForGood() {
      held = true;
    }

    synchronized void replicated(ReplicatedGuard.Enter<Object> enter) {
      this.replicated = enter;
    }

    synchronized void failed() {
      this.failed = true;
    }

    /** The guarded method returned (or threw): later suspensions are not its writes'. */
    synchronized void returned() {
      returned = true;
    }

    /**
     * The caller's transaction was suspended; true if that happened during the call (the first time
     * or again).
     */
    synchronized boolean suspended() {
      if (returned) {
        return false;
      }
      ownTransactionPossible = true;
      return true;
    }

    /** Clustered, not replicated yet and not ended. */
    synchronized boolean unsent() {
      return replicated == null && !failed && !pending.isDone();
    }

    synchronized void visible() {
      if (aborted) {
        return; // nothing became visible through this add
      }
      Runnable l = late;
      if (l != null) {
        late = null;
        safely(guard, "visible() of a late enter", l);
        return;
      }
      ReplicatedGuard.Enter<Object> r = replicated;
      ReplicatedGuard<Object> group = guard.replicated();
      if (group != null && r == null) {
        ReplicatedGuard.Enter<Object> entered = enterLate(group, true);
        if (entered != null) {
          safely(guard, "visible() of a late enter", entered::visible);
        } else {
          guard
              .guard()
              .markStale("a guarded add became visible before the cluster acknowledged it");
        }
      } else if (!pending.isDone()) {
        safely(guard, "visible() of an enter", r != null ? r::visible : pending::visible);
      }
    }

    /**
     * A clustered write became visible without its enter replicated first: only a transaction that
     * committed although the replication before its commit failed (from the batch's
     * beforeCompletion, where Spring cannot roll back) or never ran (a guarded add made inside
     * another synchronization's beforeCompletion). Another instance may lack the key meanwhile:
     * enter it everywhere, late, and say so; if even that fails, this instance passes through until
     * a rebuild has scanned the row (the other instances are then not covered: see the README).
     *
     * <p>The row is committed, so the late enter must not give up because the committing thread was
     * interrupted (a caller's timeout, an executor shutting down): the interrupt status is cleared
     * for the late enter and restored afterwards. Given up on an interrupt, the enter was aborted
     * on every instance and only this one marked stale, so another instance holding its lease
     * answered "absent" for the committed row ({@code LateVisibleTest}).
     *
     * @param visible whether the row may be visible already (an error) or commits only later, with
     *     the manager's cleanup ({@link #committedBeforeTheWrite})
     * @return the enter replicated now, still to end; null if it failed (the local enter is ended)
     */
    private ReplicatedGuard.@Nullable Enter<Object> enterLate(
        ReplicatedGuard<Object> group, boolean visible) {
      LOG.log(
          visible ? Level.ERROR : Level.WARNING,
          () ->
              "Guard '"
                  + guard.name()
                  + "': the guarded add of "
                  + pending.key()
                  + (visible
                      ? " became visible "
                          + (failed
                              ? "after the other instances failed to acknowledge it"
                              : "before its enter was sent to the other instances")
                          + "; entering it on every instance late"
                      : " was made after its transaction's commit began (in an afterCommit"
                          + " callback); entering it on every instance before the transaction's"
                          + " cleanup commits it"));
      boolean interrupted = Thread.interrupted();
      try {
        // after a failed replication (which aborted the local enter) a new one
        return failed || pending.isDone()
            ? group.beginEnter(pending.key())
            : group.replicate(List.of(pending)).get(0);
      } catch (InterruptedException | RuntimeException ex) {
        if (ex instanceof InterruptedException) {
          interrupted = true;
        }
        return null;
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /**
     * The transaction committed before this add wrote (the add was made in one of its {@code
     * afterCommit} callbacks): the row commits later, with the manager's cleanup (a JDBC
     * connection's auto-commit reset), or never. The enter stays in flight until that cleanup has
     * released the transaction's resources, so a rebuild scanning before the row commits keeps its
     * fingerprint ({@code LateAddTest}); a clustered enter that the batch never sent (its
     * beforeCommit had passed) is replicated now, still before that commit. If that fails the other
     * instances are not covered (logged), this one is: a new local enter stays in flight instead.
     * Where nothing can be watched the enter ends now, as before.
     */
    private void committedBeforeTheWrite() {
      synchronized (this) {
        if (aborted || pending.isDone() && replicated == null && !failed) {
          return; // ended already
        }
        ReplicatedGuard<Object> group = guard.replicated();
        if (group != null && replicated == null && late == null) {
          ReplicatedGuard.Enter<Object> entered = enterLate(group, false);
          if (entered != null) {
            late = entered::visible;
          } else {
            LOG.log(
                Level.ERROR,
                () ->
                    "Guard '"
                        + guard.name()
                        + "': the other instances did not acknowledge the guarded add of "
                        + pending.key()
                        + "; they may answer \"absent\" for it until their next rebuild");
            PendingEnter<Object> local =
                pending.isDone() ? guard.guard().beginEnter(pending.key()) : pending;
            late = local::visible;
          }
        }
      }
      if (!transactions.whenResourcesReleased(this::visible)) {
        visible();
      }
    }

    synchronized void abort() {
      aborted = true;
      ReplicatedGuard.Enter<Object> r = replicated;
      if (pending.isDone()) {
        return; // ended, or aborted by a failed replication
      }
      // replicated: here and, paired, on every instance that applied the begin; else local only
      safely(guard, "abort() of an enter", r != null ? r::abort : pending::abort);
    }

    void completed(TransactionHooks.Outcome outcome) {
      Settlement end;
      synchronized (this) {
        if (held) {
          return;
        }
        end = later;
      }
      if (end != null) {
        settleAt(transactions, end, false, outcome, pending.key());
        return;
      }
      switch (outcome) {
        // an add undone by a savepoint rollback: its row is gone, the spare copy a false positive
        case COMMITTED, COMMITTED_AFTER_A_SAVEPOINT_ROLLBACK -> visible();
        case COMMITTED_BEFORE_THE_WRITE -> committedBeforeTheWrite();
        case ROLLED_BACK -> {
          boolean own;
          synchronized (this) {
            own = ownTransactionPossible;
          }
          if (own) {
            visible(); // another transaction may have committed the row: a spare copy at worst
          } else {
            abort();
          }
        }
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
   * cancel()}. Its ends are the local guard's or, with a group, the replicated leave's.
   */
  private static final class Leave {
    private final GuardHandle guard;
    private final Runnable gone;
    private final Runnable cancel;
    private boolean done;

    Leave(GuardHandle guard, Runnable gone, Runnable cancel) {
      this.guard = guard;
      this.gone = gone;
      this.cancel = cancel;
    }

    synchronized void gone() {
      if (!done) {
        done = true;
        safely(guard, "gone() of a leave", gone);
      }
    }

    synchronized void cancel() {
      if (!done) {
        done = true;
        safely(guard, "cancel() of a leave", cancel);
      }
    }

    /**
     * {@code gone()} only after a commit that followed the delete; a delete made after the commit
     * began (in an {@code afterCommit}) is still uncommitted here, its row visible to others, and
     * one that a rollback to an earlier savepoint undid ({@code NESTED}) left its row: both keep
     * their copy (a false positive until the next rebuild; {@code NestedRollbackTest}).
     */
    void completed(TransactionHooks.Outcome outcome) {
      if (outcome == TransactionHooks.Outcome.COMMITTED) {
        gone();
      } else {
        cancel();
      }
    }
  }
}
