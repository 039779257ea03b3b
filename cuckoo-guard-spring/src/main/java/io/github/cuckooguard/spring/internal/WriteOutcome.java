package io.github.cuckooguard.spring.internal;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;

/**
 * How a {@code @GuardedAdd} or {@code @GuardedRemove} method reports what it did, read from its
 * return type once when the context starts. The two questions are asked one-sidedly, so that an
 * unclear answer (a {@code null} {@code Boolean}, say) always errs towards keeping a fingerprint:
 * an enter is aborted only if the method <em>definitely</em> created nothing, a key is removed only
 * if the method <em>definitely</em> removed it.
 *
 * <p>A method that returns a {@code CompletableFuture} or {@code CompletionStage} ({@link
 * #completesLater}) reports through the stage's value, read by the same rules from the stage's
 * declared element type ({@code CompletableFuture<Boolean>} is a {@link #FLAG}), and its write ends
 * when the stage completes, not when the method returns. Return types whose completion the guard
 * cannot observe (another {@link Future}, a reactive or Kotlin type, a suspending function) are
 * rejected when the context starts: the write they stand for would run after the guard ended the
 * enter or took the key's fingerprint. A {@code Future} of an {@code @Async} method is accepted:
 * with Spring's async advice in proxy mode ({@code @EnableAsync}) that advice runs outside the
 * guard's, so the guard ends the write on the executor's thread when the body has returned, its
 * write over.
 *
 * <p>Where that assumption fails (no {@code @EnableAsync}, {@code mode = ASPECTJ}, another async
 * annotation type configured), and for a synchronous add declared {@code Object} that returns a
 * future, the interceptor checks the result at run time instead of failing the start: a {@code
 * Future} still running when the method returns keeps its key in flight (a {@code CompletionStage}
 * until it completes, a plain {@code Future} for good); see {@code
 * GuardInterceptor#addStillRunning}. The start is not failed for a missing async post-processor:
 * without one an {@code @Async} method simply runs on the caller's thread, and a body that returns
 * a completed future is correct; the configurations that would break the assumption cannot all be
 * seen from the bean definitions (compile-time weaving, a processor defined by hand, another
 * annotation type), while the run-time rule covers each of them.
 */
enum WriteOutcome {
  /** {@code boolean}/{@code Boolean}: {@code true} means done. */
  FLAG,
  /** {@code int}/{@code long} and boxes: a count of rows, above 0 means done. */
  COUNT,
  /** Any other type: done whenever the method returns normally (declared by contract). */
  RETURNED;

  /**
   * Deferred results by the name of their type (none of them is a dependency): the guard cannot
   * wait for them. {@code java.util.concurrent.Flow.Publisher} is checked by type.
   */
  private static final String[] UNOBSERVABLE = {
    "org.reactivestreams.Publisher",
    "reactor.core.publisher.Mono",
    "reactor.core.publisher.Flux",
    "io.reactivex.rxjava3.core.Single",
    "io.reactivex.rxjava3.core.Maybe",
    "io.reactivex.rxjava3.core.Completable",
    "io.reactivex.rxjava3.core.Observable",
    "io.reactivex.Single",
    "io.reactivex.Maybe",
    "io.reactivex.Completable",
    "io.reactivex.Observable",
    "io.smallrye.mutiny.Uni",
    "io.smallrye.mutiny.Multi",
    "io.vertx.core.Future",
    "kotlinx.coroutines.flow.Flow",
    "kotlinx.coroutines.Job",
    "scala.concurrent.Future"
  };

  /**
   * Whether the write of {@code method} ends when the {@code CompletableFuture} or {@code
   * CompletionStage} it returns completes, rather than when it returns.
   *
   * @param where the annotation and method, for the message
   * @throws IllegalStateException naming the method if it returns a deferred result whose
   *     completion cannot be observed, or a subtype of {@code CompletableFuture} or {@code
   *     CompletionStage} (the interceptor returns a {@code CompletableFuture} that completes after
   *     the guard has ended the write)
   */
  static boolean completesLater(String where, Method method) {
    Class<?> type = method.getReturnType();
    if (type == CompletableFuture.class || type == CompletionStage.class) {
      return true;
    }
    String unobservable = unobservable(method);
    if (unobservable != null) {
      throw new IllegalStateException(
          where
              + ": "
              + unobservable
              + ", so the write it stands for may run after the guard has ended the enter or"
              + " taken the key's fingerprint, and a rebuild scanning in between would report the"
              + " key absent (a false negative). Fix: return CompletableFuture or CompletionStage"
              + " (the guard ends the write when the stage completes), or make the method"
              + " synchronous (@Async on it is fine with @EnableAsync in its default proxy mode:"
              + " the guard then runs on the executor's thread).");
    }
    return false;
  }

  /** Why {@code method}'s result cannot be followed to its completion; null if it can. */
  private static @Nullable String unobservable(Method method) {
    Class<?> type = method.getReturnType();
    Class<?>[] parameters = method.getParameterTypes();
    if (parameters.length > 0
        && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
      return "it is a Kotlin suspending function, which the guard cannot wait for";
    }
    if (CompletionStage.class.isAssignableFrom(type)) {
      return "it returns "
          + type.getName()
          + "; only the types CompletableFuture and CompletionStage themselves are supported, as"
          + " the guard returns a CompletableFuture of its own that completes once the write has"
          + " ended";
    }
    if (Future.class.isAssignableFrom(type)) {
      if (isAsync(method)) {
        // Spring's @Async advice runs before every other (AsyncAnnotationBeanPostProcessor puts
        // its advisor first), so the guard runs on the executor's thread around the write, and
        // the Future the method body returns is the one of a write that is over
        return null;
      }
      return "it returns "
          + type.getName()
          + ", a Future that is not a CompletionStage, whose completion the guard cannot observe";
    }
    if (java.util.concurrent.Flow.Publisher.class.isAssignableFrom(type)) {
      return "it returns " + type.getName() + ", a publisher the guard cannot follow";
    }
    String deferred = deferred(type);
    if (deferred != null) {
      return "it returns "
          + type.getName()
          + " (a "
          + deferred
          + "), which the guard cannot follow";
    }
    if (isAsync(method)) {
      return null; // the value is made on the executor's thread, after the write
    }
    String carried = carried(method.getGenericReturnType(), new HashSet<>(), 0);
    if (carried != null) {
      return "it returns "
          + method.getGenericReturnType().getTypeName()
          + ", which carries a "
          + carried
          + " (a deferred result inside the value: the guard would end the write when the method"
          + " returns, not when that result completes)";
    }
    return null;
  }

  /** The deferred type {@code type} is or implements ({@code Future}, a publisher...), or null. */
  private static @Nullable String deferred(Class<?> type) {
    if (Future.class.isAssignableFrom(type)) {
      return Future.class.getName();
    }
    if (CompletionStage.class.isAssignableFrom(type)) {
      return CompletionStage.class.getName();
    }
    if (java.util.concurrent.Flow.Publisher.class.isAssignableFrom(type)) {
      return java.util.concurrent.Flow.Publisher.class.getName();
    }
    for (String name : UNOBSERVABLE) {
      if (isAssignableTo(type, name)) {
        return name;
      }
    }
    return null;
  }

  /**
   * A deferred type inside a value of {@code type}: a type argument ({@code Optional<Future<T>>},
   * {@code List<CompletableFuture<T>>}), an array's element type, or a record's component, searched
   * a few levels deep; null if there is none. {@code Class<...>} arguments name types, not values,
   * and are skipped.
   */
  private static @Nullable String carried(Type type, Set<Type> seen, int depth) {
    if (depth > 4 || !seen.add(type)) {
      return null;
    }
    if (depth > 0 && type instanceof Class<?> c) {
      String deferred = deferred(c);
      if (deferred != null) {
        return deferred;
      }
    }
    if (type instanceof ParameterizedType p) {
      if (p.getRawType() == Class.class) {
        return null;
      }
      String found = carried(p.getActualTypeArguments(), seen, depth + 1);
      return found != null ? found : carried(p.getRawType(), seen, depth);
    }
    if (type instanceof GenericArrayType a) {
      return carried(a.getGenericComponentType(), seen, depth + 1);
    }
    if (type instanceof WildcardType w) {
      return carried(w.getUpperBounds(), seen, depth + 1);
    }
    if (type instanceof TypeVariable<?> v) {
      return carried(v.getBounds(), seen, depth + 1);
    }
    if (type instanceof Class<?> c) {
      if (c.isArray()) {
        return carried(c.getComponentType(), seen, depth + 1);
      }
      if (c.isRecord()) {
        RecordComponent[] components = c.getRecordComponents();
        Type[] types = new Type[components.length];
        for (int i = 0; i < types.length; i++) {
          types[i] = components[i].getGenericType();
        }
        return carried(types, seen, depth + 1);
      }
    }
    return null;
  }

  /** The first deferred type {@link #carried} finds in one of {@code types}, or null. */
  private static @Nullable String carried(Type[] types, Set<Type> seen, int depth) {
    for (Type t : types) {
      String found = carried(t, seen, depth);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /**
   * Whether a value of the return type of {@code method} (resolved against {@code targetClass}, so
   * that Spring Data's {@code <S extends T> S save(S)} is the entity type) can be a {@code Future}:
   * {@code Object}, a {@code Future} type, or an interface (which a future class may implement).
   * Only such an add can return, at run time, a write still under way; a class type that a future
   * could extend is not counted (the interceptor still follows its result, replicating a clustered
   * enter when it sees the running future).
   */
  static boolean mayReturnAFuture(Method method, @Nullable Class<?> targetClass) {
    Class<?> type =
        ResolvableType.forMethodReturnType(
                method, targetClass != null ? targetClass : method.getDeclaringClass())
            .resolve(method.getReturnType());
    if (type.isPrimitive()) {
      return false;
    }
    return type == Object.class || Future.class.isAssignableFrom(type) || type.isInterface();
  }

  private static boolean isAsync(Method method) {
    return AnnotatedElementUtils.hasAnnotation(method, Async.class)
        || AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), Async.class);
  }

  /**
   * The outcome reported by a {@code @GuardedAdd} method; every return type is accepted, types
   * other than a flag or a count meaning "insert-only, created when it returns". For a stage, that
   * of its element type; a stage whose element type is not declared is {@link #RETURNED}.
   */
  static WriteOutcome forAdd(Method method, @Nullable Class<?> targetClass) {
    Class<?> type = reportingType(method, targetClass);
    WriteOutcome reported = type == null ? null : reportedBy(type);
    return reported != null ? reported : RETURNED;
  }

  /**
   * The outcome reported by a {@code @GuardedRemove} method: by its return type, or for a stage by
   * its declared element type.
   *
   * @throws IllegalStateException naming the method when the return type reports nothing
   */
  static WriteOutcome forRemove(
      Method method, @Nullable Class<?> targetClass, boolean throwsIfAbsent) {
    Class<?> declared = method.getReturnType();
    boolean stage = declared == CompletableFuture.class || declared == CompletionStage.class;
    Class<?> type = reportingType(method, targetClass);
    WriteOutcome reported = type == null ? null : reportedBy(type);
    if (reported != null) {
      return reported;
    }
    boolean nothing = stage ? type == Void.class : type == void.class;
    if (nothing && throwsIfAbsent) {
      return RETURNED;
    }
    String fix =
        stage
            ? "complete the stage with a Boolean (true = removed) or the count of removed rows"
                + " (CompletableFuture<Boolean>, CompletableFuture<Integer>); or, if the stage"
                + " completes exceptionally when there is nothing to remove, declare"
                + " CompletableFuture<Void> and @GuardedRemove(throwsIfAbsent = true)"
            : nothing
                ? "return boolean (true = removed) or the count of removed rows; or, if the method"
                    + " throws when there is nothing to remove, declare"
                    + " @GuardedRemove(throwsIfAbsent = true)"
                : "return boolean (true = removed) or the count of removed rows (int or long)";
    throw new IllegalStateException(
        "@GuardedRemove on "
            + Describe.method(method)
            + ": return type "
            + ResolvableType.forMethodReturnType(method)
            + " does not say whether a key was removed, and removing the fingerprint of a key "
            + "that was never added can make another key a false negative. Fix: "
            + fix
            + ".");
  }

  /**
   * The type whose value reports the outcome: the return type, or a stage's element type resolved
   * against {@code targetClass} (null if not declared).
   */
  private static @Nullable Class<?> reportingType(Method method, @Nullable Class<?> targetClass) {
    Class<?> declared = method.getReturnType();
    if (declared != CompletableFuture.class && declared != CompletionStage.class) {
      return declared;
    }
    ResolvableType type =
        ResolvableType.forMethodReturnType(
            method, targetClass != null ? targetClass : method.getDeclaringClass());
    return type.getGeneric(0).resolve();
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

  private static boolean isAssignableTo(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(name)) {
        return true;
      }
      for (Class<?> ifc : c.getInterfaces()) {
        if (isAssignableTo(ifc, name)) {
          return true;
        }
      }
    }
    return false;
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
