package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.hibernate.HibernateCuckooGuards;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.metamodel.EntityType;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.hibernate.SessionFactory;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Entity guards of cuckoo-guard-hibernate as {@link GuardView}s; loaded only when Hibernate is
 * present.
 */
final class EntityGuardViews {

  private EntityGuardViews() {}

  static void collect(ListableBeanFactory beanFactory, Map<String, GuardView> into) {
    for (EntityManagerFactory emf :
        beanFactory.getBeansOfType(EntityManagerFactory.class, false, false).values()) {
      SessionFactory sessionFactory;
      HibernateCuckooGuards guards;
      try {
        sessionFactory = emf.unwrap(SessionFactory.class);
        guards = HibernateCuckooGuards.of(sessionFactory);
      } catch (RuntimeException notGuarded) {
        continue; // not Hibernate, or no guarded entity in this factory
      }
      for (String entityName : guards.guardedEntities()) {
        for (EntityType<?> type : emf.getMetamodel().getEntities()) {
          if ((type.getJavaType().getName().equals(entityName) || type.getName().equals(entityName))
              && readableWithoutTenant(guards, type.getJavaType())) {
            into.putIfAbsent(
                type.getName(), new EntityGuard(type.getName(), type.getJavaType(), guards));
          }
        }
      }
    }
  }

  /** False for a multi-tenant factory, whose guards are per tenant (not listed yet). */
  private static boolean readableWithoutTenant(HibernateCuckooGuards guards, Class<?> entity) {
    try {
      guards.stats(entity);
      return true;
    } catch (IllegalStateException multiTenant) {
      return false;
    }
  }

  private record EntityGuard(String name, Class<?> entity, HibernateCuckooGuards guards)
      implements GuardView {

    @Override
    public Kind kind() {
      return Kind.ENTITY;
    }

    @Override
    public GuardStats stats() {
      return guards.stats(entity).guard();
    }

    @Override
    public double expectedFpp() {
      return Double.NaN;
    }

    @Override
    public CompletableFuture<Void> rebuild() {
      return guards.rebuild(entity);
    }

    @Override
    public void markStale(String reason) {
      guards.markStale(entity);
    }
  }
}
