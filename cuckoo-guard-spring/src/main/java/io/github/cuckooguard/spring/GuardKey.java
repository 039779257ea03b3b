package io.github.cuckooguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter whose value is the key of a {@link GuardedFind}, {@link GuardedAdd} or {@link
 * GuardedRemove} method, instead of a {@code key} expression. At most one parameter of a method may
 * carry it, and not together with a {@code key} expression; the context fails to start otherwise.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface GuardKey {}
