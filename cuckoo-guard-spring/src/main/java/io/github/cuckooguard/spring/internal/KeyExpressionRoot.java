package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * The root object of key expressions ({@code #root.method}, {@code #root.args[0]}, {@code
 * #root.target}), as {@code @Cacheable} offers.
 */
public final class KeyExpressionRoot {

  private final Method method;
  private final Object[] args;
  private final @Nullable Object target;

  KeyExpressionRoot(Method method, Object[] args, @Nullable Object target) {
    this.method = method;
    this.args = args;
    this.target = target;
  }

  /** The method being called. */
  public Method getMethod() {
    return method;
  }

  /** The name of the method being called. */
  public String getMethodName() {
    return method.getName();
  }

  /** The arguments of the call. */
  public Object[] getArgs() {
    return args;
  }

  /** The bean the method is called on (behind its proxy), or null if unknown. */
  public @Nullable Object getTarget() {
    return target;
  }
}
