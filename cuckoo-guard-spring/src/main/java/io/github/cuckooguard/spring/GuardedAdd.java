package io.github.cuckooguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method that makes a key exist in the store (an insert): its key enters the guard <b>before</b>
 * the method runs, so that no reader can ever see the new row while the guard still says "absent".
 *
 * <p><b>Contract: the method creates a new key, or says that it did not.</b> A key owns one
 * fingerprint in the guard while it exists; the guard cannot tell a new key from an existing one,
 * so it relies on the method:
 *
 * <ul>
 *   <li>{@code boolean} / {@code Boolean}: {@code true} means the key was created; {@code false}
 *       (e.g. "already exists") aborts the enter at once.
 *   <li>{@code int}, {@code long} and their boxes: a count of created rows; {@code 0} aborts the
 *       enter.
 *   <li>{@code void} or any other type: the method creates the key whenever it returns normally.
 *       Use it only on insert-only methods; an upsert such as Spring Data's {@code save} must not
 *       carry this annotation (each save of an existing key would add another fingerprint: never a
 *       false negative, but a leak that fills the guard).
 * </ul>
 *
 * <p><b>Transactions.</b> The key's enter ({@link io.github.cuckooguard.CuckooGuard#beginEnter})
 * stays in flight until the write's fate is known. When a transaction is active at the call, it
 * ends after that transaction: visible after commit, aborted (the fingerprint removed, paired with
 * this add) after rollback ({@code afterCompletion}); a method that reports it created nothing
 * aborts it at once. When the method throws and no transaction is active, the enter is kept,
 * because the write may have happened: a spare fingerprint at worst, never a false negative. The
 * method's write should take part in the transaction active at the call: a method declared
 * {@code @Transactional(propagation = REQUIRES_NEW)} or {@code NOT_SUPPORTED} fails the start of
 * the context. A transaction of its own begun inside the body (a {@code REQUIRES_NEW} template, a
 * method of another transaction manager) suspends the caller's transaction, which the guard hears:
 * the enter is then never aborted by the caller's rollback (a spare fingerprint at worst) and,
 * clustered, is sent to the other instances before that inner transaction begins. A write on a
 * connection outside Spring's transactions (auto-commit, a data source no manager binds) cannot be
 * seen and is not covered.
 *
 * <p><b>Writes that complete later.</b> A method returning {@code CompletableFuture} or {@code
 * CompletionStage} (e.g. {@code supplyAsync(() -> jdbc.update("insert …"), executor)}) reports
 * through the stage's value, read as above from its declared element type ({@code
 * CompletableFuture<Boolean>}: {@code false} aborts), and its enter stays in flight until the stage
 * has completed <em>and</em> the transaction active at the call (if any) has ended. A write on the
 * executor is not part of the caller's transaction, so the caller's rollback does not abort the
 * enter (a spare fingerprint at worst); an exceptional completion keeps the key, as a throwing
 * method does. The stage must complete only once its write is committed (as {@code supplyAsync} of
 * an auto-commit statement or of a {@code @Transactional} method does); the caller receives a stage
 * of the guard's that completes after the stage's end was recorded, and cancelling it cancels
 * neither the method's stage nor its write (a write under way could still commit after the guard
 * heard "cancelled"). Clustered, the enter is sent to the other instances before the method runs.
 * Return types whose completion the guard cannot observe (a {@code Future} that is not a {@code
 * CompletionStage}, a subtype of {@code CompletableFuture}, Reactor, RxJava, Mutiny, Kotlin
 * coroutines or {@code Flow.Publisher}) fail the start of the context; an {@code @Async} method may
 * also return a plain {@code Future}, as Spring's async advice runs outside the guard's, so the
 * guard runs on the executor's thread, around the write.
 *
 * <p>The key is evaluated before the method runs, so it must be known then (an id assigned by the
 * caller, a natural key, a UUID); {@code #result} is not available. A key that evaluates to {@code
 * null} throws {@link NullPointerException} and the method does not run.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GuardedAdd {

  /** The name of the guard; empty means the one declared by {@link CuckooGuarded} on the class. */
  String guard() default "";

  /** The key expression; see {@link GuardedFind#key()}. */
  String key() default "";
}
