package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.metamodel.EntityType;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.hibernate.SessionFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * {@link EntityGuardLookup} on cuckoo-guard-hibernate: each declared entity's guard is found in the
 * one {@code EntityManagerFactory} bean (a Hibernate {@code SessionFactory} bean is one too) that
 * maps it, unwrapped to {@link SessionFactory}, and asked through {@link
 * HibernateCuckooGuards#mightContain(Class, Object)}, for the tenant the factory's resolver names.
 *
 * <p>Once the singletons exist, every declared entity is resolved, so that a factory that does not
 * guard it fails the start of the context, with a message saying what to do.
 *
 * <p><b>Persistence contexts.</b> The guard knows the rows that exist and the inserts that were
 * flushed, not the entities an open persistence context holds unflushed. The finder of a repository
 * uses the {@code EntityManager} bound to the thread, if there is one (a transaction,
 * open-EntityManager-in-view); then the guard steps aside and the finder runs. Without a bound one,
 * the finder would get a new {@code EntityManager}, whose persistence context is empty. Binding is
 * checked under every key Spring may bind it with: each bean of the factory and the native {@code
 * SessionFactory}.
 *
 * <p>Thread-safe.
 */
final class HibernateEntityGuards
    implements EntityGuardLookup, SmartInitializingSingleton, BeanFactoryAware {

  private static final boolean TRANSACTIONS =
      ClassUtils.isPresent(
          "org.springframework.transaction.support.TransactionSynchronizationManager",
          HibernateEntityGuards.class.getClassLoader());

  private final Map<Class<?>, String> declaredBy;
  private @Nullable ListableBeanFactory beanFactory;
  private final ConcurrentMap<Class<?>, Guard> guards = new ConcurrentHashMap<>();

  /**
   * Used by the bean definition that {@link GuardBeanRegistrar} registers (a constructor, not an
   * instance supplier, and arrays, whose code Spring AOT can generate); the bean factory comes
   * through {@link BeanFactoryAware}.
   */
  public HibernateEntityGuards(Class<?>[] entities, String[] declaredBy) {
    if (entities.length != declaredBy.length) {
      throw new IllegalArgumentException(
          entities.length + " entities, " + declaredBy.length + " declarations");
    }
    Map<Class<?>, String> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < entities.length; i++) {
      map.put(entities[i], declaredBy[i]);
    }
    this.declaredBy = Map.copyOf(map);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = (ListableBeanFactory) beanFactory;
  }

  private ListableBeanFactory beanFactory() {
    ListableBeanFactory factory = beanFactory;
    if (factory == null) {
      throw new IllegalStateException("HibernateEntityGuards used outside a bean factory");
    }
    return factory;
  }

  @Override
  public EntityGuard guardOf(Class<?> entity, String where) {
    String declarations = declaredBy.get(entity);
    if (declarations == null) {
      throw new IllegalStateException(
          where
              + ": @CuckooGuarded(entity = "
              + entity.getSimpleName()
              + ".class) was not among the bean definitions when the context registered its guards "
              + "(declared: "
              + declaredBy.keySet()
              + "). Register the repository as a bean definition "
              + "(component scan, @Bean, @EnableJpaRepositories), not as a ready-made object.");
    }
    return guards.computeIfAbsent(entity, type -> new Guard(type, declarations));
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (Map.Entry<Class<?>, String> declared : declaredBy.entrySet()) {
      guards
          .computeIfAbsent(declared.getKey(), type -> new Guard(type, declared.getValue()))
          .resolved();
    }
  }

  /** The factory of one entity, once found, and the keys its EntityManagers may be bound with. */
  private record Resolved(HibernateCuckooGuards guards, List<Object> resourceKeys) {

    boolean entityManagerBound() {
      return TRANSACTIONS && Bindings.anyBound(resourceKeys);
    }
  }

  /** Kept apart so that spring-tx is touched only when it is on the class path. */
  private static final class Bindings {
    static boolean anyBound(List<Object> keys) {
      for (Object key : keys) {
        if (TransactionSynchronizationManager.hasResource(key)) {
          return true;
        }
      }
      return false;
    }
  }

  private final class Guard implements EntityGuard {

    private final Class<?> entity;
    private final String declaredBy;

    /** Set once resolved; threads racing on the first call may each resolve, to the same result. */
    private volatile @Nullable Resolved resolved;

    Guard(Class<?> entity, String declaredBy) {
      this.entity = entity;
      this.declaredBy = declaredBy;
    }

    @Override
    public boolean mightContain(Object id) {
      Resolved factory = resolved();
      return factory.entityManagerBound() || factory.guards().mightContain(entity, id);
    }

    @Override
    public String describe() {
      return "entity " + entity.getName();
    }

    Resolved resolved() {
      Resolved current = resolved;
      if (current == null) {
        current = resolve();
        resolved = current;
      }
      return current;
    }

    private Resolved resolve() {
      String what = "@CuckooGuarded(entity = " + entity.getName() + ".class) on " + declaredBy;
      ListableBeanFactory beanFactory = beanFactory();
      String[] names = beanFactory.getBeanNamesForType(EntityManagerFactory.class);
      if (names.length == 0) {
        throw new IllegalStateException(
            what
                + ": the context has no EntityManagerFactory (or "
                + "Hibernate SessionFactory) bean, so there is no entity guard to ask. Define the JPA "
                + "EntityManagerFactory bean, or give the repository a guard of its own with "
                + "@CuckooGuarded(name = \"…\") and annotate its adds and removes.");
      }
      Map<SessionFactory, List<String>> mapping = new IdentityHashMap<>();
      Map<SessionFactory, List<Object>> keys = new IdentityHashMap<>();
      for (String name : names) {
        EntityManagerFactory bean = beanFactory.getBean(name, EntityManagerFactory.class);
        if (!maps(bean)) {
          continue;
        }
        SessionFactory sessionFactory = unwrap(what, name, bean);
        mapping.computeIfAbsent(sessionFactory, f -> new ArrayList<>()).add(name);
        List<Object> bindingKeys =
            keys.computeIfAbsent(sessionFactory, f -> new ArrayList<>(List.of(f)));
        if (bean != sessionFactory) {
          bindingKeys.add(bean);
        }
      }
      if (mapping.isEmpty()) {
        throw new IllegalStateException(
            what
                + ": none of the EntityManagerFactory beans "
                + List.of(names)
                + " maps "
                + entity.getName()
                + " as an entity. Add it to the "
                + "persistence unit, or name the entity class itself (not a superclass or DTO).");
      }
      if (mapping.size() > 1) {
        throw new IllegalStateException(
            what
                + ": "
                + entity.getName()
                + " is mapped by several "
                + "persistence units "
                + mapping.values()
                + ", and the finder must ask the guard of "
                + "the one it reads from. Map the entity in one persistence unit only, or give the "
                + "repository a guard of its own with @CuckooGuarded(name = \"…\").");
      }
      SessionFactory sessionFactory = mapping.keySet().iterator().next();
      String beans = String.join(", ", mapping.get(sessionFactory));
      HibernateCuckooGuards entityGuards;
      try {
        entityGuards = HibernateCuckooGuards.of(sessionFactory);
      } catch (IllegalArgumentException ex) {
        throw new IllegalStateException(
            what
                + ": cuckoo-guard-hibernate guards nothing in "
                + "EntityManagerFactory bean '"
                + beans
                + "'. "
                + ex.getMessage(),
            ex);
      }
      if (!entityGuards.isGuarded(entity)) {
        throw new IllegalStateException(
            what
                + ": "
                + entity.getName()
                + " is not guarded by "
                + "cuckoo-guard-hibernate in EntityManagerFactory bean '"
                + beans
                + "' (guarded: "
                + entityGuards.guardedEntities()
                + "). Annotate it with @GuardedEntity or list it in "
                + "hibernate.cuckoo.entities.");
      }
      return new Resolved(entityGuards, List.copyOf(keys.get(sessionFactory)));
    }

    private boolean maps(EntityManagerFactory factory) {
      for (EntityType<?> type : factory.getMetamodel().getEntities()) {
        if (type.getJavaType() == entity) {
          return true;
        }
      }
      return false;
    }

    private SessionFactory unwrap(String what, String name, EntityManagerFactory factory) {
      try {
        return factory.unwrap(SessionFactory.class);
      } catch (RuntimeException ex) {
        throw new IllegalStateException(
            what
                + ": EntityManagerFactory bean '"
                + name
                + "' is not "
                + "Hibernate ORM ("
                + ex
                + "); the entity guard is cuckoo-guard-hibernate's and needs "
                + "Hibernate. Give the repository a guard of its own with @CuckooGuarded(name = \"…\").",
            ex);
      }
    }
  }
}
