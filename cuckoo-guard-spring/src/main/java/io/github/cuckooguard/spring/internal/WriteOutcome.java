package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * How a {@code @GuardedAdd} or {@code @GuardedRemove} method reports what it did, read from its
 * return type once when the context starts. The two questions are asked one-sidedly, so that an
 * unclear answer (a {@code null} {@code Boolean}, say) always errs towards keeping a fingerprint:
 * an enter is aborted only if the method <em>definitely</em> created nothing, a key is removed only
 * if the method <em>definitely</em> removed it.
 */
enum WriteOutcome {
  /** {@code boolean}/{@code Boolean}: {@code true} means done. */
  FLAG,
  /** {@code int}/{@code long} and boxes: a count of rows, above 0 means done. */
  COUNT,
  /** Any other type: done whenever the method returns normally (declared by contract). */
  RETURNED;

  /**
   * The outcome reported by a {@code @GuardedAdd} method; every return type is accepted, types
   * other than a flag or a count meaning "insert-only, created when it returns".
   */
  static WriteOutcome forAdd(Method method) {
    WriteOutcome reported = reportedBy(method.getReturnType());
    return reported != null ? reported : RETURNED;
  }

  /**
   * The outcome reported by a {@code @GuardedRemove} method.
   *
   * @throws IllegalStateException naming the method when the return type reports nothing
   */
  static WriteOutcome forRemove(Method method, boolean throwsIfAbsent) {
    Class<?> type = method.getReturnType();
    WriteOutcome reported = reportedBy(type);
    if (reported != null) {
      return reported;
    }
    if (type == void.class && throwsIfAbsent) {
      return RETURNED;
    }
    String fix =
        type == void.class
            ? "return boolean (true = removed) or the count of removed rows; or, if the method throws "
                + "when there is nothing to remove, declare @GuardedRemove(throwsIfAbsent = true)"
            : "return boolean (true = removed) or the count of removed rows (int or long)";
    throw new IllegalStateException(
        "@GuardedRemove on "
            + Describe.method(method)
            + ": return type "
            + type.getName()
            + " does not say whether a key was removed, and removing the fingerprint of a key "
            + "that was never added can make another key a false negative. Fix: "
            + fix
            + ".");
  }

  private static @Nullable WriteOutcome reportedBy(Class<?> type) {
    if (type == boolean.class || type == Boolean.class) {
      return FLAG;
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return COUNT;
    }
    return null;
  }

  /** For an add: whether the method's result says that it certainly created nothing. */
  boolean definitelyNothingDone(@Nullable Object result) {
    return switch (this) {
      case FLAG -> Boolean.FALSE.equals(result);
      case COUNT -> result instanceof Number count && count.longValue() == 0;
      case RETURNED -> false;
    };
  }

  /** For a remove: whether the method's result says that it certainly removed the key. */
  boolean definitelyDone(@Nullable Object result) {
    return switch (this) {
      case FLAG -> Boolean.TRUE.equals(result);
      case COUNT -> result instanceof Number count && count.longValue() > 0;
      case RETURNED -> true;
    };
  }
}
