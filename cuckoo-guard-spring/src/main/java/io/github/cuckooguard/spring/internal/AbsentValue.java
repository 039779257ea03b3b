package io.github.cuckooguard.spring.internal;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;

/**
 * The "nothing found" value of a finder's return type, which a definite miss returns instead of
 * calling the finder, and the test of whether a result is that value (a false positive of the
 * guard). Decided once per method when the context starts; a type without an unambiguous "nothing
 * found" value is rejected then, never guessed.
 *
 * <p>Mutable containers are returned fresh (an {@code ArrayList}, a {@code HashSet}), since the
 * finder they replace may have returned a mutable one; streams are single-use and also fresh.
 */
final class AbsentValue {

  private static final String[] REJECTED_CONTAINERS = {
    "org.reactivestreams.Publisher",
    "kotlinx.coroutines.flow.Flow",
    "java.util.Map",
    "java.util.Iterator"
  };

  private final Supplier<@Nullable Object> value;
  private final Predicate<@Nullable Object> isAbsent;
  private final @Nullable AbsentValue futureElement;

  private AbsentValue(Supplier<@Nullable Object> value, Predicate<@Nullable Object> isAbsent) {
    this(value, isAbsent, null);
  }

  private AbsentValue(
      Supplier<@Nullable Object> value,
      Predicate<@Nullable Object> isAbsent,
      @Nullable AbsentValue futureElement) {
    this.value = value;
    this.isAbsent = isAbsent;
    this.futureElement = futureElement;
  }

  /**
   * The absent value of {@code method}'s return type, resolved against {@code targetClass} (for
   * generic repositories).
   *
   * @throws IllegalStateException naming the method if the type cannot be short-circuited
   */
  static AbsentValue forFinder(Method method, @Nullable Class<?> targetClass) {
    ResolvableType type =
        ResolvableType.forMethodReturnType(
            method, targetClass != null ? targetClass : method.getDeclaringClass());
    try {
      return of(type, true);
    } catch (UnsupportedTypeException ex) {
      throw new IllegalStateException(
          "@GuardedFind on "
              + Describe.method(method)
              + ": return type "
              + type
              + " cannot be "
              + "short-circuited ("
              + ex.getMessage()
              + ")"
              + ". A definite miss must return the finder's own \"nothing found\" value, and "
              + "there is none for this type. Supported: a reference type (null), Optional, "
              + "boolean/Boolean (false), List/Collection/Iterable/Set/SortedSet/NavigableSet, "
              + "Stream, arrays (empty), and CompletableFuture/CompletionStage/Future of one of "
              + "these. Change the return type (e.g. Optional<Long> instead of long) or remove "
              + "@GuardedFind.");
    }
  }

  private static AbsentValue of(ResolvableType type, boolean allowFuture) {
    Class<?> raw = type.toClass();
    if (raw == boolean.class || raw == Boolean.class) {
      return constant(Boolean.FALSE);
    }
    if (raw.isPrimitive()) {
      throw new UnsupportedTypeException(
          raw == void.class
              ? "a void finder returns nothing to short-circuit"
              : "0 and \"not found\" cannot be told apart");
    }
    if (Number.class.isAssignableFrom(raw) || raw == Character.class) {
      throw new UnsupportedTypeException("a boxed number could mean null or 0");
    }
    if (raw == Optional.class) {
      return constant(Optional.empty());
    }
    if (raw == OptionalInt.class) {
      return constant(OptionalInt.empty());
    }
    if (raw == OptionalLong.class) {
      return constant(OptionalLong.empty());
    }
    if (raw == OptionalDouble.class) {
      return constant(OptionalDouble.empty());
    }
    if (raw == List.class || raw == Collection.class || raw == Iterable.class) {
      return new AbsentValue(ArrayList::new, AbsentValue::isEmptyIterable);
    }
    if (raw == Set.class) {
      return new AbsentValue(HashSet::new, AbsentValue::isEmptyIterable);
    }
    if (raw == SortedSet.class || raw == NavigableSet.class) {
      return new AbsentValue(TreeSet::new, AbsentValue::isEmptyIterable);
    }
    if (raw == Stream.class) {
      return new AbsentValue(Stream::empty, result -> false);
    }
    if (raw == IntStream.class) {
      return new AbsentValue(IntStream::empty, result -> false);
    }
    if (raw == LongStream.class) {
      return new AbsentValue(LongStream::empty, result -> false);
    }
    if (raw == DoubleStream.class) {
      return new AbsentValue(DoubleStream::empty, result -> false);
    }
    if (raw.isArray()) {
      Object empty = Array.newInstance(raw.getComponentType(), 0);
      return new AbsentValue(() -> empty, result -> result != null && Array.getLength(result) == 0);
    }
    if (raw == CompletableFuture.class || raw == CompletionStage.class || raw == Future.class) {
      if (!allowFuture) {
        throw new UnsupportedTypeException("a future of a future");
      }
      ResolvableType element = type.getGeneric(0);
      if (element.resolve() == null) {
        throw new UnsupportedTypeException("the future's element type is not declared");
      }
      AbsentValue inner = of(element, false);
      return new AbsentValue(
          () -> CompletableFuture.completedFuture(inner.value()), result -> false, inner);
    }
    if (Collection.class.isAssignableFrom(raw) || Iterable.class.isAssignableFrom(raw)) {
      throw new UnsupportedTypeException(
          "only the interfaces List, Collection, Iterable, Set, "
              + "SortedSet and NavigableSet are supported, not "
              + raw.getName());
    }
    for (String name : REJECTED_CONTAINERS) {
      if (isAssignableTo(raw, name)) {
        throw new UnsupportedTypeException(
            "a " + name + " has no single empty value the finder would return");
      }
    }
    return new AbsentValue(() -> null, result -> result == null);
  }

  private static AbsentValue constant(Object value) {
    return new AbsentValue(() -> value, value::equals);
  }

  private static boolean isEmptyIterable(@Nullable Object result) {
    return result instanceof Iterable<?> iterable && !iterable.iterator().hasNext();
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

  /** The value to return for a definite miss; a fresh container where the type is mutable. */
  @Nullable Object value() {
    return value.get();
  }

  /**
   * Calls {@code onAbsent} if {@code result} is the "nothing found" value, now or, for a future,
   * when it completes. Streams are never inspected (that would consume them).
   */
  void whenAbsent(@Nullable Object result, Runnable onAbsent) {
    AbsentValue element = futureElement;
    if (element != null) {
      if (result instanceof CompletionStage<?> stage) {
        stage.whenComplete(
            (value, failure) -> {
              if (failure == null && element.isAbsent.test(value)) {
                onAbsent.run();
              }
            });
      }
    } else if (isAbsent.test(result)) {
      onAbsent.run();
    }
  }

  /** Signals a return type without an unambiguous absent value; the message says why. */
  private static final class UnsupportedTypeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnsupportedTypeException(String reason) {
      super(reason, null, false, false);
    }
  }
}
