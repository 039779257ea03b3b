package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the guarded methods: the class filter parses and checks every method of a bean class once
 * (so wrong annotations fail the start), the method matcher looks the method up.
 */
final class GuardPointcut extends StaticMethodMatcherPointcut {

  private final GuardOperationSource operations;

  GuardPointcut(GuardOperationSource operations) {
    this.operations = operations;
    setClassFilter(operations::hasOperations);
  }

  @Override
  public boolean matches(Method method, @Nullable Class<?> targetClass) {
    return operations.getOperation(method, targetClass) != null;
  }
}
