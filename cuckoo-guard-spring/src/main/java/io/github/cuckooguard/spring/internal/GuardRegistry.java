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
  private final ConcurrentMap<String, KeyKinds> kinds = new ConcurrentHashMap<>();
  private final KeyKindCheck kindCheck = new KeyKindCheck();

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
   * Records the declared key type of a guarded method of the guard named {@code name}, if the guard
   * is one built from {@code @CuckooGuarded}: an add's type is given to the guard's {@link
   * KeyKinds} at once, and every type is checked against the kinds the guard is given ({@link
   * KeyKindCheck}) once the context has started, or now if it has.
   *
   * @param type the key's declared type, {@code null} if not known before the call
   * @throws IllegalStateException if the context has started and the key's kind does not fit
   */
  void declareKey(
      String name, GuardOperation.Kind role, String where, @Nullable Class<?> type, String spel) {
    if (type == null || KeyKinds.kindOf(type) == 0 || !keyType(name).isCanonical()) {
      return;
    }
    if (role == GuardOperation.Kind.ADD) {
      kinds(name).give(KeyKinds.kindOf(type));
    }
    kindCheck.declare(name, new KeyKindCheck.Declared(role, where, type, spel));
  }

  /**
   * Once the guarded methods of the declaring bean types are parsed: gives each guard the element
   * type of its key scan, and checks the key kinds of every guard ({@link KeyKindCheck}).
   *
   * @throws IllegalStateException naming the first method whose key kind does not fit its guard
   */
  void checkKeyKinds() {
    for (String name : kindCheck.guards()) {
      String factoryName = BeanFactory.FACTORY_BEAN_PREFIX + name;
      if (beanFactory.isTypeMatch(factoryName, DeclaredGuardFactoryBean.class)
          && beanFactory.getBean(factoryName) instanceof DeclaredGuardFactoryBean declared) {
        KeyScan scan = declared.keyScan();
        Class<?> element = scan == null ? null : scan.elementType(beanFactory);
        int kind = KeyKinds.kindOf(element);
        if (scan != null && element != null && kind != 0) {
          kinds(name).give(kind);
          kindCheck.scan(
              name, new KeyKindCheck.Declared(null, "the " + scan.describe(), element, ""));
        }
      }
    }
    kindCheck.checkAll();
  }

  /** The key kinds of the guard named {@code name}, built from {@code @CuckooGuarded}. */
  KeyKinds kinds(String name) {
    return kinds.computeIfAbsent(name, KeyKinds::new);
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
    GuardHandle.KeyType type = keyType(name);
    return new GuardHandle(
        name, guard, type, type.isCanonical() ? kinds(name) : null, cluster.join(name, guard));
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
