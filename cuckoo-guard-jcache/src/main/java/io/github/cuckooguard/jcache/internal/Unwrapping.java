package io.github.cuckooguard.jcache.internal;

import java.util.function.Function;

/** The {@code unwrap(Class)} that the guard's JCache wrappers (cache and cache manager) share. */
public final class Unwrapping {

  private Unwrapping() {}

  /**
   * Returns {@code wrapper} itself if it is an instance of {@code clazz}, else what the wrapped
   * object unwraps to.
   *
   * @param wrapper the guard's wrapper being unwrapped
   * @param clazz the requested class
   * @param wrapped the wrapped object's {@code unwrap}, asked only when {@code wrapper} is not a
   *     {@code clazz}
   * @throws NullPointerException if {@code clazz} is null
   * @throws IllegalArgumentException from {@code wrapped}, if it cannot unwrap to {@code clazz}
   */
  public static <T> T unwrap(Object wrapper, Class<T> clazz, Function<Class<T>, T> wrapped) {
    if (clazz.isInstance(wrapper)) {
      return clazz.cast(wrapper);
    }
    return wrapped.apply(clazz);
  }
}
