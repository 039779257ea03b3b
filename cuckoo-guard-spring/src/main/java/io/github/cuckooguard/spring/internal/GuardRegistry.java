package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.ResolvableType;
import org.springframework.expression.BeanResolver;

/**
 * The guards of one application context, by bean name, as the interceptor and the key scans use
 * them. Guard beans are looked up lazily, on the first guarded call, so that a guard (and its key
 * source) may depend on the repositories it guards. Thread-safe.
 */
public final class GuardRegistry {

  /**
   * Bean definition attribute set on the guards built from {@code @CuckooGuarded}: their keys use
   * {@link CanonicalKeyFunnel}.
   */
  static final String CANONICAL_KEYS_ATTRIBUTE = GuardRegistry.class.getName() + ".canonicalKeys";

  private final BeanFactory beanFactory;
  private final BeanResolver beanResolver;
  private final ConcurrentMap<String, GuardHandle> handles = new ConcurrentHashMap<>();
  private final GuardCluster cluster;

  GuardRegistry(BeanFactory beanFactory, GuardCluster cluster) {
    this.beanFactory = beanFactory;
    this.beanResolver = new BeanFactoryResolver(beanFactory);
    this.cluster = cluster;
  }

  /**
   * Checks, without creating it, that a guard bean of this name exists.
   *
   * @param where the annotated method, for the message
   * @throws IllegalStateException naming the method and the guard otherwise
   */
  void checkGuard(String name, String where) {
    if (!beanFactory.containsBean(name)) {
      throw new IllegalStateException(
          where
              + ": there is no CuckooGuard bean named '"
              + name
              + "'. Declare it with @CuckooGuarded(name = \""
              + name
              + "\") on the repository class or "
              + "Spring Data repository interface, or define a CuckooGuard bean of that name.");
    }
    if (!beanFactory.isTypeMatch(name, CuckooGuard.class)) {
      throw new IllegalStateException(
          where
              + ": the bean named '"
              + name
              + "' is a "
              + beanFactory.getType(name)
              + ", not a CuckooGuard. Rename the guard or the bean.");
    }
  }

  /**
   * Checks, without creating the guard, that keys of the declared type {@code type} fit the guard
   * named {@code name} ({@code null}: not known before the call).
   *
   * @throws IllegalStateException naming {@code where}, the guard and the type otherwise
   */
  void checkKeyType(String name, String where, @Nullable Class<?> type) {
    if (type != null) {
      keyType(name).check(where, name, type);
    }
  }

  /**
   * The cuckoo-guard-hibernate guard of {@code entity}, declared with {@code @CuckooGuarded(entity
   * = …)}.
   *
   * @param where the annotated method, for the message
   * @throws IllegalStateException naming the method if no such declaration was registered
   */
  EntityGuardLookup.EntityGuard entityGuard(Class<?> entity, String where) {
    if (!beanFactory.containsBean(EntityGuardLookup.BEAN_NAME)) {
      throw new IllegalStateException(
          where
              + ": @CuckooGuarded(entity = "
              + entity.getSimpleName()
              + ".class) was not among the bean definitions when the context registered its guards. "
              + "Register the repository as a bean definition (component scan, @Bean, "
              + "@EnableJpaRepositories), not as a ready-made object.");
    }
    return beanFactory
        .getBean(EntityGuardLookup.BEAN_NAME, EntityGuardLookup.class)
        .guardOf(entity, where);
  }

  /** The guard named {@code name}, created on first use. */
  GuardHandle handle(String name) {
    GuardHandle handle = handles.get(name);
    if (handle == null) {
      // Not computeIfAbsent: creating the guard bean may run arbitrary bean code.
      GuardHandle created = createHandle(name);
      handle = handles.putIfAbsent(name, created);
      return handle != null ? handle : created;
    }
    return handle;
  }

  @SuppressWarnings("unchecked")
  private GuardHandle createHandle(String name) {
    CuckooGuard<Object> guard = beanFactory.getBean(name, CuckooGuard.class);
    // The same group for every handle of the name: the cluster joins each name once.
    return new GuardHandle(name, guard, keyType(name), cluster.join(name, guard));
  }

  private GuardHandle.KeyType keyType(String name) {
    if (beanFactory instanceof ConfigurableListableBeanFactory factory
        && factory.containsBeanDefinition(name)) {
      BeanDefinition definition = factory.getMergedBeanDefinition(name);
      // The attribute is lost in AOT-generated definitions; the bean class is kept.
      if (Boolean.TRUE.equals(definition.getAttribute(CANONICAL_KEYS_ATTRIBUTE))
          || definition instanceof AbstractBeanDefinition abd
              && abd.hasBeanClass()
              && abd.getBeanClass() == DeclaredGuardFactoryBean.class) {
        return GuardHandle.KeyType.canonical();
      }
      ResolvableType type = definition.getResolvableType().as(CuckooGuard.class);
      return GuardHandle.KeyType.of(type.getGeneric(0).resolve());
    }
    return GuardHandle.KeyType.of(null);
  }

  /** Resolves {@code @bean} references in key expressions. */
  @Nullable BeanResolver beanResolver() {
    return beanResolver;
  }
}
