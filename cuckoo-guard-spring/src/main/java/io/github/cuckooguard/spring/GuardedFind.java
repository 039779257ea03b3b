package io.github.cuckooguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A finder guarded by a {@link io.github.cuckooguard.CuckooGuard}: when the guard says the key is
 * definitely absent, the method is not called (no transaction, no connection, no query) and the
 * "nothing found" value of its return type is returned instead:
 *
 * <table>
 *   <caption>Short-circuit value by declared return type</caption>
 *   <tr><th>return type</th><th>value</th></tr>
 *   <tr><td>{@code Optional}, {@code OptionalInt}, {@code OptionalLong}, {@code OptionalDouble}</td><td>empty</td></tr>
 *   <tr><td>{@code boolean}, {@code Boolean} (exists-style)</td><td>{@code false}</td></tr>
 *   <tr><td>{@code List}, {@code Collection}, {@code Iterable}</td><td>a new empty {@code ArrayList}</td></tr>
 *   <tr><td>{@code Set}; {@code SortedSet}, {@code NavigableSet}</td><td>a new empty {@code HashSet}; {@code TreeSet}</td></tr>
 *   <tr><td>{@code Stream}, {@code IntStream}, {@code LongStream}, {@code DoubleStream}</td><td>an empty stream</td></tr>
 *   <tr><td>an array</td><td>an empty array</td></tr>
 *   <tr><td>{@code CompletableFuture<T>}, {@code CompletionStage<T>}</td><td>completed with the value for {@code T}</td></tr>
 *   <tr><td>any other reference type (an entity, a DTO, a {@code String})</td><td>{@code null}</td></tr>
 * </table>
 *
 * <p>Every other return type fails the start of the context with a message naming the method:
 * primitives other than {@code boolean} and the boxed numbers ({@code long count(id)} cannot be
 * answered without guessing whether 0 or null is meant), {@code void}, concrete collection classes,
 * {@code Map} and other containers.
 *
 * <p>When the guard answers "might contain", the method runs as usual; if it then returns the value
 * above, the guard records a false positive ({@link
 * io.github.cuckooguard.CuckooGuard#reportFalsePositive}), which feeds the guard's observed
 * false-positive rate. With {@link CuckooGuarded#entity()} the guard is cuckoo-guard-hibernate's,
 * which records the false positives of the finds that reach {@code Session.find} itself; the key
 * must then be the entity's id.
 *
 * <p>The key is the value of {@link #key()}, else of the {@link GuardKey} parameter, else of the
 * only parameter. A key that evaluates to {@code null} or fails to evaluate at run time is not
 * short-circuited: the method runs.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GuardedFind {

  /** The name of the guard; empty means the one declared by {@link CuckooGuarded} on the class. */
  String guard() default "";

  /**
   * A SpEL expression for the key, evaluated against the arguments as with {@code @Cacheable}:
   * {@code #id} (needs the {@code -parameters} compiler flag), {@code #p0} or {@code #a0}, {@code
   * #root.args[0]}, {@code #root.method}, {@code @bean}. Empty means {@link GuardKey} or the only
   * parameter. Checked when the context starts: a syntax error or a variable that names no
   * parameter fails the start.
   */
  String key() default "";
}
