package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.KeySource;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.function.Consumer;
import java.util.stream.BaseStream;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

/**
 * Where a guard's keys come from, resolved lazily (when a scan starts) so that the source may
 * depend on the repository that uses the guard: a {@link KeySource} bean, or a repository method
 * annotated with {@code @GuardKeySource}, called through the bean's proxies.
 */
sealed interface KeyScan {

  /** Emits every key of the source. */
  void forEachKey(BeanFactory beanFactory, Consumer<Object> action) throws Exception;

  /** For log and error messages. */
  String describe();

  /**
   * The declared type of the keys the scan emits, as far as it is known without running it ({@code
   * List<Long>}: {@code Long}), else null.
   */
  @Nullable Class<?> elementType(BeanFactory beanFactory);

  /** A {@link KeySource} bean. */
  record OfBean(String beanName) implements KeyScan {
    @Override
    @SuppressWarnings("unchecked")
    public void forEachKey(BeanFactory beanFactory, Consumer<Object> action) throws Exception {
      beanFactory.getBean(beanName, KeySource.class).forEachKey(action);
    }

    @Override
    public String describe() {
      return "KeySource bean '" + beanName + "'";
    }

    @Override
    public @Nullable Class<?> elementType(BeanFactory beanFactory) {
      if (beanFactory instanceof ConfigurableListableBeanFactory factory
          && factory.containsBeanDefinition(beanName)) {
        return factory
            .getMergedBeanDefinition(beanName)
            .getResolvableType()
            .as(KeySource.class)
            .getGeneric(0)
            .resolve();
      }
      return null;
    }
  }

  /** A {@code @GuardKeySource} method of a bean. */
  record OfMethod(String beanName, Method method) implements KeyScan {

    /**
     * Checks that {@code method} can be a key scan.
     *
     * @throws IllegalStateException naming the method otherwise
     */
    static OfMethod of(String beanName, Method method) {
      Class<?> type = method.getReturnType();
      boolean emitsKeys =
          Iterable.class.isAssignableFrom(type)
              || BaseStream.class.isAssignableFrom(type)
              || type.isArray();
      if (method.getParameterCount() != 0 || !emitsKeys) {
        throw new IllegalStateException(
            "@GuardKeySource on "
                + Describe.method(method)
                + ": a key scan "
                + "takes no parameters and returns the keys as an Iterable (List, Set…), a Stream or an "
                + "array, e.g. @Query(\"select u.id from User u\") List<Long> allIds().");
      }
      return new OfMethod(beanName, method);
    }

    @Override
    public void forEachKey(BeanFactory beanFactory, Consumer<Object> action) throws Exception {
      Object bean = beanFactory.getBean(beanName);
      Object keys;
      try {
        ReflectionUtils.makeAccessible(method);
        keys = method.invoke(bean);
      } catch (InvocationTargetException ex) {
        Throwable cause = ex.getCause();
        throw cause instanceof Exception e ? e : ex;
      }
      if (keys instanceof Iterable<?> iterable) {
        iterable.forEach(action);
      } else if (keys instanceof BaseStream<?, ?> stream) {
        try (stream) {
          stream.iterator().forEachRemaining(action);
        }
      } else if (keys != null && keys.getClass().isArray()) {
        for (int i = 0, n = Array.getLength(keys); i < n; i++) {
          action.accept(Array.get(keys, i));
        }
      } else {
        throw new IllegalStateException(describe() + " returned null instead of the keys");
      }
    }

    @Override
    public String describe() {
      return "@GuardKeySource method " + Describe.method(method) + " of bean '" + beanName + "'";
    }

    @Override
    public @Nullable Class<?> elementType(BeanFactory beanFactory) {
      ResolvableType type = ResolvableType.forMethodReturnType(method);
      if (type.isArray()) {
        return type.getComponentType().resolve();
      }
      ResolvableType elements = type.as(Iterable.class);
      if (elements == ResolvableType.NONE) {
        elements = type.as(BaseStream.class);
      }
      return elements == ResolvableType.NONE ? null : elements.getGeneric(0).resolve();
    }
  }
}
