package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import io.github.cuckooguard.spring.internal.GuardOperation.Kind;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Reads the guard annotations of a method, the way {@code AnnotationCacheOperationSource} reads
 * {@code @Cacheable}: on the most specific method of the target class first, then on the method the
 * call came in on (an interface method: the only place a Spring Data repository can carry them),
 * each time through the type hierarchy (so an annotation on an interface method applies to its
 * implementations). The class-level {@link CuckooGuarded} is found on the target class or its
 * interfaces; with {@link CuckooGuarded#entity()} its finders ask cuckoo-guard-hibernate's guard of
 * that entity, and adds and removes that name no guard of their own are rejected.
 *
 * <p>Every check that does not need arguments runs here, when the auto-proxy creator asks whether a
 * bean's methods match, so a wrong configuration fails the start of the context with a message
 * naming the method. Results are cached per (method, target class); thread-safe.
 */
public final class GuardOperationSource {

  private static final List<Class<? extends Annotation>> METHOD_ANNOTATIONS =
      List.of(GuardedFind.class, GuardedAdd.class, GuardedRemove.class);

  private final Map<MethodClassKey, Optional<GuardOperation>> cache = new ConcurrentHashMap<>(256);
  private final Map<Class<?>, Boolean> classes = new ConcurrentHashMap<>(64);
  private final GuardRegistry registry;
  private final TransactionHooks transactions;

  GuardOperationSource(GuardRegistry registry, TransactionHooks transactions) {
    this.registry = registry;
    this.transactions = transactions;
  }

  /**
   * Whether any method of {@code targetClass} (or of its interfaces) is guarded. Parses and checks
   * every method, not only up to the first guarded one as {@code AopUtils.canApply} would, so that
   * each wrong annotation of a proxied bean fails the start of the context.
   *
   * @throws IllegalStateException naming the first wrongly annotated method
   */
  public boolean hasOperations(Class<?> targetClass) {
    Boolean cached = classes.get(targetClass);
    if (cached == null) {
      cached = computeHasOperations(targetClass);
      classes.put(targetClass, cached);
    }
    return cached;
  }

  private boolean computeHasOperations(Class<?> targetClass) {
    if (!AnnotationUtils.isCandidateClass(targetClass, METHOD_ANNOTATIONS)) {
      return false;
    }
    Set<Class<?>> types = new LinkedHashSet<>();
    if (!Proxy.isProxyClass(targetClass)) {
      types.add(ClassUtils.getUserClass(targetClass));
    }
    types.addAll(ClassUtils.getAllInterfacesForClassAsSet(targetClass));
    boolean any = false;
    for (Class<?> type : types) {
      for (Method method : ReflectionUtils.getAllDeclaredMethods(type)) {
        any |= getOperation(method, targetClass) != null;
      }
    }
    return any;
  }

  /**
   * The operation of {@code method} called on {@code targetClass}, or {@code null} if the method is
   * not guarded.
   *
   * @throws IllegalStateException naming the method if its annotations are wrong
   */
  public @Nullable GuardOperation getOperation(Method method, @Nullable Class<?> targetClass) {
    if (ReflectionUtils.isObjectMethod(method)) {
      return null;
    }
    MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
    Optional<GuardOperation> cached = cache.get(cacheKey);
    if (cached == null) {
      cached = Optional.ofNullable(compute(method, targetClass));
      cache.put(cacheKey, cached);
    }
    return cached.orElse(null);
  }

  private @Nullable GuardOperation compute(Method method, @Nullable Class<?> targetClass) {
    List<Method> candidates = new ArrayList<>(2);
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    if (!Proxy.isProxyClass(specific.getDeclaringClass())) {
      candidates.add(specific);
    }
    if (!candidates.contains(method)) {
      candidates.add(method);
    }
    for (int i = 0; i < candidates.size(); i++) {
      Method candidate = candidates.get(i);
      List<Annotation> found = new ArrayList<>(1);
      for (Class<? extends Annotation> type : METHOD_ANNOTATIONS) {
        addIfPresent(candidate, type, found);
      }
      if (found.size() > 1) {
        throw new IllegalStateException(
            Describe.method(candidate)
                + " carries "
                + found.size()
                + " guard annotations "
                + found
                + "; a method is a find, an add or a remove, not several.");
      }
      if (found.size() == 1) {
        return parse(found.get(0), candidates.subList(i, candidates.size()), targetClass);
      }
    }
    return null;
  }

  private static void addIfPresent(
      Method method, Class<? extends Annotation> type, List<Annotation> found) {
    Annotation annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
    if (annotation != null) {
      found.add(annotation);
    }
  }

  private GuardOperation parse(
      Annotation annotation, List<Method> declarations, @Nullable Class<?> targetClass) {
    Method method = declarations.get(0);
    Kind kind;
    String guard;
    String key;
    if (annotation instanceof GuardedFind find) {
      kind = Kind.FIND;
      guard = find.guard();
      key = find.key();
    } else if (annotation instanceof GuardedAdd add) {
      kind = Kind.ADD;
      guard = add.guard();
      key = add.key();
    } else {
      GuardedRemove remove = (GuardedRemove) annotation;
      kind = Kind.REMOVE;
      guard = remove.guard();
      key = remove.key();
    }
    String where = kind.annotation() + " on " + Describe.method(method);
    checkInterceptable(where, method);
    String guardName;
    EntityGuardLookup.EntityGuard entity = null;
    if (StringUtils.hasText(guard)) {
      guardName = guard;
    } else {
      CuckooGuarded declared = classLevelDeclaration(method, targetClass);
      if (declared != null && declared.entity() != void.class) {
        entity = entityGuard(kind, where, declared.entity());
        guardName = entity.describe();
      } else {
        guardName = requireName(where, declared);
      }
    }
    if (entity == null) {
      registry.checkGuard(guardName, where);
    }
    KeyResolver keyResolver = KeyResolver.create(kind.annotation(), declarations, key);
    if (entity == null) {
      Class<?> staticType = keyResolver.staticType(targetClass);
      registry.checkKeyType(guardName, where, staticType);
      registry.declareKey(guardName, kind, where, staticType, keyResolver.spel());
    }
    String name = Describe.method(method);
    return switch (kind) {
      case FIND ->
          new GuardOperation(
              kind,
              guardName,
              entity,
              keyResolver,
              AbsentValue.forFinder(method, targetClass),
              null,
              false,
              false,
              name);
      case ADD -> {
        boolean later = WriteOutcome.completesLater(where, method);
        transactions.checkAddPropagation(where, method, targetClass);
        yield new GuardOperation(
            kind,
            guardName,
            null,
            keyResolver,
            null,
            WriteOutcome.forAdd(method, targetClass),
            later,
            !later && WriteOutcome.mayReturnAFuture(method, targetClass),
            name);
      }
      case REMOVE -> {
        boolean later = WriteOutcome.completesLater(where, method);
        yield new GuardOperation(
            kind,
            guardName,
            null,
            keyResolver,
            null,
            WriteOutcome.forRemove(
                method, targetClass, ((GuardedRemove) annotation).throwsIfAbsent()),
            later,
            false,
            name);
      }
    };
  }

  /**
   * The entity guard a finder of a {@code @CuckooGuarded(entity = …)} repository asks.
   *
   * @throws IllegalStateException for an add or a remove, which Hibernate already follows
   */
  private EntityGuardLookup.EntityGuard entityGuard(Kind kind, String where, Class<?> entity) {
    if (kind != Kind.FIND) {
      throw WritePathCheck.entityWriteRejected(where, entity);
    }
    return registry.entityGuard(entity, where);
  }

  /**
   * Checks the key kinds of every guard against the types its guarded methods declare ({@link
   * KeyKindCheck}); called once the declaring bean types were parsed.
   *
   * @throws IllegalStateException naming the first method whose key kind does not fit its guard
   */
  void checkKeyKinds() {
    registry.checkKeyKinds();
  }

  private static void checkInterceptable(String where, Method method) {
    int modifiers = method.getModifiers();
    String problem =
        Modifier.isStatic(modifiers)
            ? "static"
            : Modifier.isPrivate(modifiers)
                ? "private"
                : Modifier.isFinal(modifiers) ? "final" : null;
    if (problem != null) {
      throw new IllegalStateException(
          where
              + ": the method is "
              + problem
              + ", so a proxy cannot "
              + "intercept it and the guard would silently not apply (a missed add is a false "
              + "negative). Make it a non-final instance method called through the bean.");
    }
  }

  private static @Nullable CuckooGuarded classLevelDeclaration(
      Method method, @Nullable Class<?> targetClass) {
    CuckooGuarded declared =
        targetClass == null
            ? null
            : AnnotatedElementUtils.findMergedAnnotation(targetClass, CuckooGuarded.class);
    if (declared == null) {
      declared =
          AnnotatedElementUtils.findMergedAnnotation(
              method.getDeclaringClass(), CuckooGuarded.class);
    }
    return declared;
  }

  private static String requireName(String where, @Nullable CuckooGuarded declared) {
    if (declared == null || !StringUtils.hasText(declared.name())) {
      throw new IllegalStateException(
          where
              + ": no guard named. Put @CuckooGuarded(name = \"…\") on "
              + "the class or interface, or name the guard in the annotation (guard = \"…\").");
    }
    return declared.name();
  }
}
