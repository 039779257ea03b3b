package io.github.cuckooguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method that makes a key stop existing in the store (a delete): its leave is announced to the
 * guard ({@link io.github.cuckooguard.CuckooGuard#beginLeave}) <b>before</b> the method runs, and
 * the key leaves <b>after</b> it is gone, that is after the active transaction commits ({@code
 * afterCompletion(STATUS_COMMITTED)}), or when the method returns if no transaction is active. A
 * delete that throws, removes nothing or is rolled back removes nothing from the guard.
 *
 * <p><b>Contract: the method reports whether it removed the key.</b> Removing the fingerprint of a
 * key that was never added can remove another key's fingerprint and make that key a false negative,
 * so the guard removes only what the method reports:
 *
 * <ul>
 *   <li>{@code boolean} / {@code Boolean}: {@code true} means removed.
 *   <li>{@code int}, {@code long} and their boxes: a count of removed rows; above {@code 0} means
 *       removed (for example a Spring Data {@code @Modifying @Query("delete …") int …}).
 *   <li>{@code void}: only with {@link #throwsIfAbsent()} {@code = true}, a statement that the
 *       method throws when there was nothing to remove, so that returning normally means removed.
 *       Spring Data's {@code deleteById} silently ignores a missing id and must not be annotated.
 * </ul>
 *
 * <p>A method returning {@code CompletableFuture} or {@code CompletionStage} reports through the
 * stage's value, by the same rules applied to its declared element type ({@code
 * CompletableFuture<Boolean>}, {@code CompletableFuture<Integer>}; {@code CompletableFuture<Void>}
 * with {@link #throwsIfAbsent()}, where an exceptional completion means "nothing removed"), and the
 * key leaves only once the stage has completed saying so <em>and</em> the transaction active at the
 * call (if any) has committed; anything else keeps the key (a false positive at worst). The stage
 * must complete only once its delete is committed. Deferred results the guard cannot observe fail
 * the start of the context, as for {@link GuardedAdd}.
 *
 * <p>Any other return type, and {@code void} without {@link #throwsIfAbsent()}, fails the start of
 * the context with a message naming the method. A key that evaluates to {@code null} removes
 * nothing.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GuardedRemove {

  /** The name of the guard; empty means the one declared by {@link CuckooGuarded} on the class. */
  String guard() default "";

  /** The key expression; see {@link GuardedFind#key()}. */
  String key() default "";

  /**
   * For a {@code void} method (or one returning {@code CompletableFuture<Void>}): {@code true}
   * declares that the method throws (the stage completes exceptionally) when the key did not exist,
   * so that a normal return (completion) means it was removed. Ignored for other return types.
   */
  boolean throwsIfAbsent() default false;
}
