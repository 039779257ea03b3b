package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.ConstructorArgumentValues;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The reflection a native image needs for the guards of {@code @EnableCuckooGuard}, registered
 * during Spring AOT processing ({@code META-INF/spring/aot.factories}):
 *
 * <ul>
 *   <li>a {@link GuardKeySource} method is invoked reflectively ({@code KeyScan.OfMethod}, found by
 *       name in {@code DeclaredGuardFactoryBean}): invocation of the method;
 *   <li>the pointcut reads the guard annotations from the declared methods of a bean's class and
 *       interfaces ({@code GuardOperationSource}): introspection of the methods of every such type
 *       that carries {@link CuckooGuarded}, {@link GuardedFind}, {@link GuardedAdd}, {@link
 *       GuardedRemove} or {@link GuardKeySource};
 *   <li>a key expression reads properties of the method's arguments ({@code #order.id}): invocation
 *       of the public methods of the parameter types of the annotated methods (one level; an
 *       expression that goes deeper, {@code #order.customer.id}, needs a hint for the inner type).
 * </ul>
 *
 * Without these hints a native image would not see the annotations (the methods would run
 * unguarded: no false negative, but no filtering) or fail the key scan (the guard stays in
 * pass-through). Not API.
 */
public final class GuardAotProcessor implements BeanRegistrationAotProcessor {

  private static final List<Class<? extends Annotation>> METHOD_ANNOTATIONS =
      List.of(GuardedFind.class, GuardedAdd.class, GuardedRemove.class, GuardKeySource.class);

  /** Index of the key scan's declaring class among DeclaredGuardFactoryBean's arguments. */
  private static final int SCAN_CLASS_ARGUMENT = 8;

  /** Index of the key scan's method name among DeclaredGuardFactoryBean's arguments. */
  private static final int SCAN_METHOD_ARGUMENT = 9;

  /** Called by Spring's AOT support. */
  public GuardAotProcessor() {}

  @Override
  public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
    Set<Method> invoked = new LinkedHashSet<>();
    Set<Class<?>> introspected = new LinkedHashSet<>();
    Set<Class<?>> parameterTypes = new LinkedHashSet<>();
    if (bean.getBeanClass() == DeclaredGuardFactoryBean.class) {
      Method scan = declaredKeyScan(bean.getMergedBeanDefinition());
      if (scan != null) {
        invoked.add(scan);
      }
    } else {
      Class<?> type = userType(bean);
      if (type != null) {
        collect(type, invoked, introspected, parameterTypes);
      }
    }
    if (invoked.isEmpty() && introspected.isEmpty()) {
      return null;
    }
    return (generationContext, code) -> {
      ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
      introspected.forEach(t -> introspect(reflection, t));
      invoked.forEach(m -> reflection.registerMethod(m, ExecutableMode.INVOKE));
      parameterTypes.forEach(t -> reflection.registerType(t, MemberCategory.INVOKE_PUBLIC_METHODS));
    };
  }

  @SuppressWarnings("deprecation") // Spring 7 reads methods without it; Spring 6.2 needs it
  private static void introspect(ReflectionHints reflection, Class<?> type) {
    reflection.registerType(
        type, MemberCategory.INTROSPECT_DECLARED_METHODS, MemberCategory.INTROSPECT_PUBLIC_METHODS);
  }

  /** The {@code @GuardKeySource} method of a guard declared by name, or null. */
  private static @Nullable Method declaredKeyScan(RootBeanDefinition definition) {
    ConstructorArgumentValues args = definition.getConstructorArgumentValues();
    ConstructorArgumentValues.ValueHolder owner =
        args.getIndexedArgumentValue(SCAN_CLASS_ARGUMENT, Class.class);
    ConstructorArgumentValues.ValueHolder name =
        args.getIndexedArgumentValue(SCAN_METHOD_ARGUMENT, String.class);
    if (owner == null
        || name == null
        || !(owner.getValue() instanceof Class<?> scanClass)
        || !(name.getValue() instanceof String methodName)
        || scanClass == void.class
        || methodName.isEmpty()) {
      return null;
    }
    return ReflectionUtils.findMethod(scanClass, methodName);
  }

  /** The class of the bean's object: the bean class, or what a FactoryBean makes. */
  private static @Nullable Class<?> userType(RegisteredBean bean) {
    Class<?> type = bean.getBeanClass();
    if (FactoryBean.class.isAssignableFrom(type)) {
      type =
          GuardBeanRegistrar.factoryObjectType(bean.getMergedBeanDefinition(), bean.getBeanType());
    }
    return type == null ? null : ClassUtils.getUserClass(type);
  }

  private static void collect(
      Class<?> type, Set<Method> invoked, Set<Class<?>> introspected, Set<Class<?>> parameters) {
    Set<Class<?>> types = new LinkedHashSet<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      types.add(c);
    }
    types.addAll(ClassUtils.getAllInterfacesForClassAsSet(type));
    for (Class<?> candidate : types) {
      boolean annotated = AnnotatedElementUtils.hasAnnotation(candidate, CuckooGuarded.class);
      Set<Method> methods =
          MethodIntrospector.selectMethods(
              candidate,
              (ReflectionUtils.MethodFilter)
                  m ->
                      METHOD_ANNOTATIONS.stream()
                          .anyMatch(a -> AnnotatedElementUtils.hasAnnotation(m, a)));
      if (!annotated && methods.isEmpty()) {
        continue;
      }
      introspected.add(candidate);
      for (Method method : methods) {
        if (AnnotatedElementUtils.hasAnnotation(method, GuardKeySource.class)) {
          invoked.add(method);
        }
        for (Class<?> p : method.getParameterTypes()) {
          if (!p.isPrimitive() && !p.isArray() && !p.getName().startsWith("java.")) {
            parameters.add(p);
          }
        }
      }
    }
  }
}
