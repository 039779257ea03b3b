package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How methods are named in error and log messages: {@code com.example.UserRepository.find(long)}.
 */
final class Describe {

  private Describe() {}

  static String method(Method method) {
    return method.getDeclaringClass().getName()
        + "."
        + method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }
}
