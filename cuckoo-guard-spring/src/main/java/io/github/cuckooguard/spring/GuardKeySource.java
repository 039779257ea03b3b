package io.github.cuckooguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a repository method as the key scan of a guard: a method without parameters that returns
 * every key of the tracked set as an {@link Iterable}, a {@link java.util.stream.Stream} (closed
 * after use) or an array, for example {@code @Query("select u.id from User u") List<Long>
 * allIds()}. It is the alternative to {@link CuckooGuarded#keySource()}; a guard has one key
 * source.
 *
 * <p>The method is called on the bean (through its proxies, so its transaction settings apply) from
 * the guard's rebuild thread: once for the warm-up after the context is refreshed, and on every
 * rebuild. A plain query of what exists is all it needs to be: the guard itself keeps the annotated
 * writes that are in flight while it runs (inserts not yet committed, deletes not yet committed)
 * and hands them to the rebuilt filter (the {@link io.github.cuckooguard.KeySource} contract).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GuardKeySource {

  /** The name of the guard; empty means the one declared by {@link CuckooGuarded} on the class. */
  String guard() default "";
}
