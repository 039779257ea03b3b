package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.SingletonBeanRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Registers one {@code CuckooGuard} bean per name declared with {@link CuckooGuarded}, before any
 * bean is created, so that guards can be injected by name like any bean. It reads the bean
 * definitions: the bean class, the return type of a {@code @Bean} method, or the object type of a
 * {@code FactoryBean} (a Spring Data repository's interface, which Spring Data records as the
 * factory bean's target type).
 *
 * <p>A name that already is a bean (a guard you built, a cuckoo-guard-hibernate guard) is left
 * alone; then the annotations may only name it. A {@code @CuckooGuarded(entity = …)} declares no
 * guard bean: it registers the {@link EntityGuardLookup} of cuckoo-guard-hibernate's entity guards
 * (once, for every such declaration), after checking that cuckoo-guard-hibernate is on the class
 * path. Configuration errors (conflicting declarations, no key source) fail the start of the
 * context here.
 */
public final class GuardBeanRegistrar
    implements BeanDefinitionRegistryPostProcessor, BeanClassLoaderAware, BeanFactoryAware {

  private static final String HIBERNATE_ADAPTER_CLASS =
      "io.github.cuckooguard.hibernate.HibernateCuckooGuards";
  private static final String HIBERNATE_CLASS = "org.hibernate.SessionFactory";
  private static final String HIBERNATE_ENTITY_GUARDS_CLASS =
      "io.github.cuckooguard.spring.internal.HibernateEntityGuards";

  private @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
  private @Nullable BeanFactory beanFactory;
  private final Set<Class<?>> declaringTypes = new LinkedHashSet<>();

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
    Map<String, GuardDeclaration> guards = new LinkedHashMap<>();
    Map<Class<?>, String> entities = new LinkedHashMap<>();
    for (String beanName : registry.getBeanDefinitionNames()) {
      BeanDefinition definition = registry.getBeanDefinition(beanName);
      if (definition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
        continue;
      }
      Class<?> type = beanType(definition);
      if (type != null) {
        collect(beanName, type, guards, entities);
      }
    }
    if (!entities.isEmpty()) {
      registerEntityGuards(registry, entities);
    }
    for (GuardDeclaration guard : guards.values()) {
      if (isBean(registry, guard.name())) {
        if (guard.configuresGuard()) {
          throw new IllegalStateException(
              "A bean named '"
                  + guard.name()
                  + "' already exists, so "
                  + "@CuckooGuarded on "
                  + guard.declaredBy()
                  + " uses it and may only name it; move "
                  + "expectedInsertions, fpp, spec, keySource, startsEmpty and @GuardKeySource to that bean.");
        }
        continue;
      }
      registry.registerBeanDefinition(guard.name(), GuardFactory.definition(guard));
    }
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {}

  private static boolean isBean(BeanDefinitionRegistry registry, String name) {
    return registry.containsBeanDefinition(name)
        || registry.isAlias(name)
        || registry instanceof SingletonBeanRegistry singletons
            && singletons.containsSingleton(name);
  }

  /** The bean types that declare {@link CuckooGuarded}, for the startup check of their methods. */
  Set<Class<?>> declaringTypes() {
    return Set.copyOf(declaringTypes);
  }

  private void collect(
      String beanName,
      Class<?> type,
      Map<String, GuardDeclaration> guards,
      Map<Class<?>, String> entities) {
    CuckooGuarded declared = AnnotatedElementUtils.findMergedAnnotation(type, CuckooGuarded.class);
    WritePathCheck.check(type, declared);
    if (declared != null) {
      declaringTypes.add(type);
    }
    if (declared != null && declared.entity() != void.class) {
      checkEntityDeclaration(declared, type);
      entities.merge(declared.entity(), type.getName(), (a, b) -> a.equals(b) ? a : a + ", " + b);
    } else if (declared != null) {
      if (!StringUtils.hasText(declared.name())) {
        throw new IllegalStateException(
            "@CuckooGuarded on "
                + type.getName()
                + " has no name; "
                + "write @CuckooGuarded(name = \"…\") (the name of the guard bean).");
      }
      guards
          .computeIfAbsent(declared.name(), GuardDeclaration::new)
          .merge(declared, type.getName());
    }
    Set<Method> scans =
        MethodIntrospector.selectMethods(
            type,
            (ReflectionUtils.MethodFilter)
                m -> AnnotatedElementUtils.hasAnnotation(m, GuardKeySource.class));
    for (Method method : scans) {
      GuardKeySource scan =
          AnnotatedElementUtils.findMergedAnnotation(method, GuardKeySource.class);
      String name =
          scan != null && StringUtils.hasText(scan.guard())
              ? scan.guard()
              : declared != null ? declared.name() : "";
      if (name.isEmpty() && declared != null && declared.entity() != void.class) {
        throw new IllegalStateException(
            "@GuardKeySource on "
                + Describe.method(method)
                + ": the "
                + "repository uses cuckoo-guard-hibernate's guard of "
                + declared.entity().getName()
                + " (@CuckooGuarded(entity = …)), which scans the entity's ids itself. Remove "
                + "@GuardKeySource, or name a guard of its own with @GuardKeySource(guard = \"…\").");
      }
      if (name.isEmpty()) {
        throw new IllegalStateException(
            "@GuardKeySource on "
                + Describe.method(method)
                + " names no "
                + "guard; put @CuckooGuarded(name = \"…\") on the class or write @GuardKeySource(guard = \"…\").");
      }
      GuardDeclaration guard = guards.get(name);
      if (guard == null) {
        throw new IllegalStateException(
            "@GuardKeySource on "
                + Describe.method(method)
                + " is for guard '"
                + name
                + "', which no @CuckooGuarded declares; a key scan belongs to a guard built from "
                + "@CuckooGuarded (a guard bean of your own has its KeySource set on its builder).");
      }
      guard.keyScanMethod(KeyScan.OfMethod.of(beanName, method));
    }
  }

  /**
   * Checks that a {@code @CuckooGuarded(entity = …)} sets nothing that belongs to a guard of its
   * own: the entity guard is cuckoo-guard-hibernate's, configured there.
   */
  private static void checkEntityDeclaration(CuckooGuarded declared, Class<?> type) {
    List<String> set = new ArrayList<>();
    if (StringUtils.hasText(declared.name())) {
      set.add("name");
    }
    if (declared.expectedInsertions() != CuckooGuarded.UNSET) {
      set.add("expectedInsertions");
    }
    if (declared.fpp() != CuckooGuarded.UNSET) {
      set.add("fpp");
    }
    if (!declared.spec().isEmpty()) {
      set.add("spec");
    }
    if (!declared.keySource().isEmpty()) {
      set.add("keySource");
    }
    if (declared.startsEmpty()) {
      set.add("startsEmpty");
    }
    if (!set.isEmpty()) {
      throw new IllegalStateException(
          "@CuckooGuarded(entity = "
              + declared.entity().getSimpleName()
              + ".class) on "
              + type.getName()
              + " also sets "
              + String.join(", ", set)
              + ". With "
              + "entity, the finders use cuckoo-guard-hibernate's guard of that entity, which is sized by "
              + "@GuardedEntity and the hibernate.cuckoo.* settings and scans the ids itself: remove "
              + String.join(", ", set)
              + ", or drop entity to declare a guard of its own.");
    }
  }

  /**
   * Registers the lookup of cuckoo-guard-hibernate's entity guards.
   *
   * @throws IllegalStateException if cuckoo-guard-hibernate or Hibernate is not on the class path
   */
  private void registerEntityGuards(
      BeanDefinitionRegistry registry, Map<Class<?>, String> entities) {
    for (String required : new String[] {HIBERNATE_ADAPTER_CLASS, HIBERNATE_CLASS}) {
      if (!ClassUtils.isPresent(required, classLoader)) {
        Map.Entry<Class<?>, String> first = entities.entrySet().iterator().next();
        throw new IllegalStateException(
            "@CuckooGuarded(entity = "
                + first.getKey().getSimpleName()
                + ".class) on "
                + first.getValue()
                + " delegates its finders to the entity guard of "
                + "cuckoo-guard's cuckoo-guard-hibernate, but "
                + required
                + " is not on the class path. "
                + "Add the dependency io.github.cuckooguard:hibernate-adapter (with Hibernate ORM), or "
                + "give the repository a guard of its own with @CuckooGuarded(name = \"…\") and "
                + "annotate its adds and removes.");
      }
    }
    // A bean class and constructor arguments, not an instance supplier: Spring AOT (process-aot,
    // native images) cannot generate code for an instance supplier ("instance supplier is not
    // supported"). The class is named, not referenced, so that it loads only with Hibernate
    // present.
    RootBeanDefinition definition =
        new RootBeanDefinition(
            ClassUtils.resolveClassName(
                HIBERNATE_ENTITY_GUARDS_CLASS,
                classLoader != null ? classLoader : getClass().getClassLoader()));
    definition
        .getConstructorArgumentValues()
        .addIndexedArgumentValue(0, entities.keySet().toArray(new Class<?>[0]));
    definition
        .getConstructorArgumentValues()
        .addIndexedArgumentValue(1, entities.values().toArray(new String[0]));
    definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
    definition.setDescription("cuckoo-guard-hibernate entity guards of " + entities.keySet());
    registry.registerBeanDefinition(EntityGuardLookup.BEAN_NAME, definition);
  }

  /** The type of the bean a definition will produce, as far as it is known without creating it. */
  private @Nullable Class<?> beanType(BeanDefinition definition) {
    Class<?> type = null;
    if (definition.getFactoryMethodName() != null) {
      MethodMetadata factoryMethod =
          definition instanceof AnnotatedBeanDefinition annotated
              ? annotated.getFactoryMethodMetadata()
              : null;
      type = factoryMethod == null ? null : load(factoryMethod.getReturnTypeName());
    } else {
      ResolvableType resolvable = definition.getResolvableType();
      type = resolvable.resolve();
      if (type == null && definition.getBeanClassName() != null) {
        type = load(definition.getBeanClassName());
      }
      if (type != null && FactoryBean.class.isAssignableFrom(type)) {
        type = factoryObjectType(definition, resolvable);
      }
    }
    return type;
  }

  /**
   * The type a {@code FactoryBean}'s definition makes: its {@link
   * FactoryBean#OBJECT_TYPE_ATTRIBUTE} (a Spring Data repository's interface), else the factory's
   * generic type.
   */
  static @Nullable Class<?> factoryObjectType(BeanDefinition definition, ResolvableType beanType) {
    Object objectType = definition.getAttribute(FactoryBean.OBJECT_TYPE_ATTRIBUTE);
    return objectType instanceof Class<?> c
        ? c
        : objectType instanceof ResolvableType r
            ? r.resolve()
            : beanType.as(FactoryBean.class).getGeneric(0).resolve();
  }

  private @Nullable Class<?> load(String className) {
    try {
      return ClassUtils.forName(className, classLoader);
    } catch (ClassNotFoundException | LinkageError ex) {
      return null;
    }
  }
}
