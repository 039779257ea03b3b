package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.hibernate.CuckooGuardSettings;
import io.github.cuckooguard.hibernate.GuardedEntity;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.spi.EventType;
import org.hibernate.event.spi.LoadEventListener;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.service.spi.SessionFactoryServiceRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Registers the guard with every session factory whose settings or annotations ask for it;
 * discovered by Hibernate through {@code
 * META-INF/services/org.hibernate.integrator.spi.Integrator}.
 *
 * <p>{@link #integrate} only reads the boot model and wires listeners: the factory is not ready for
 * queries yet, so the warm-up scans start from {@code SessionFactoryObserver
 * .sessionFactoryCreated} ({@link GuardRegistry}). Wiring:
 *
 * <ul>
 *   <li>PRE_INSERT, POST_INSERT, POST_DELETE, PRE_UPSERT: {@link MembershipListener};
 *   <li>LOAD: the group's listeners are replaced by {@link GuardedLoadListener} wrapping them;
 *   <li>the factory's {@code StatementInspector} and {@code Interceptor}, wrapped by {@link
 *       GuardSessionFactoryBuilderFactory} while the factory was built (the application's own are
 *       kept and called), get the registry: they detect bulk and native statements on guarded
 *       tables and the end of their transactions. If they are missing (a factory not built through
 *       a {@code SessionFactoryBuilder}), bulk detection is off and a warning says to call {@code
 *       HibernateCuckooGuards.markStale} after such statements.
 * </ul>
 *
 * <p>Only public API and SPI of Hibernate ORM, the same in 6.6 and 7.x ({@code
 * HibernateLinkageTest} checks every reference against the Hibernate it runs on).
 *
 * <p>Not API: instantiated by Hibernate's service loader.
 */
public final class CuckooGuardIntegrator implements Integrator {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.hibernate");

  /** Called by the service loader. */
  public CuckooGuardIntegrator() {}

  @Override
  public void integrate(
      Metadata metadata,
      BootstrapContext bootstrapContext,
      SessionFactoryImplementor sessionFactory) {
    // getServiceRegistry().requireService: BootstrapContext.getConfigurationService() is 7.x only
    Map<String, Object> all =
        bootstrapContext
            .getServiceRegistry()
            .requireService(ConfigurationService.class)
            .getSettings();
    GuardSettings settings = GuardSettings.from(all);
    ClusterSettings cluster = ClusterSettings.from(all);
    if (!settings.enabled()) {
      return;
    }
    List<EntityConfig> configs = guardedEntities(metadata, settings);
    if (configs.isEmpty()) {
      return;
    }
    GuardRegistry registry = new GuardRegistry(sessionFactory, settings, configs);
    if (cluster != null) {
      registry.replicate(Replication.of(cluster));
    }
    // getEventEngine(): SessionFactoryImplementor.getEventListenerRegistry() is 7.x only
    var events = sessionFactory.getEventEngine().getListenerRegistry();
    MembershipListener membership = new MembershipListener(registry);
    events.appendListeners(EventType.PRE_INSERT, membership);
    events.appendListeners(EventType.POST_INSERT, membership);
    events.appendListeners(EventType.POST_DELETE, membership);
    events.appendListeners(EventType.PRE_UPSERT, membership);
    if (cluster != null) {
      // after Hibernate's own flush listener: the flush's inserts go to the cluster in one batch
      events.appendListeners(EventType.FLUSH, registry.clusterEnters());
    }
    var load = events.getEventListenerGroup(EventType.LOAD);
    List<LoadEventListener> existing = new ArrayList<>();
    load.fireEventOnEachListener(existing, (listener, list) -> list.add(listener));
    load.clearListeners();
    load.appendListener(
        new GuardedLoadListener(registry, existing.toArray(new LoadEventListener[0])));
    watchBulkStatements(sessionFactory, registry);
    sessionFactory.addObserver(registry);
  }

  /** Nothing to undo: the registry stops its warm-up executor when the factory closes. */
  @Override
  public void disintegrate(
      SessionFactoryImplementor sessionFactory, SessionFactoryServiceRegistry serviceRegistry) {}

  private static void watchBulkStatements(
      SessionFactoryImplementor factory, GuardRegistry registry) {
    if (factory.getSessionFactoryOptions().getStatementInspector()
        instanceof GuardStatementInspector inspector) {
      inspector.hooks().attach(registry); // installed by GuardSessionFactoryBuilderFactory
      return;
    }
    LOGGER.log(
        Level.WARNING,
        "Cuckoo guard: session factory "
            + factory.getName()
            + " was not"
            + " built through a SessionFactoryBuilder that "
            + GuardSessionFactoryBuilderFactory.class.getSimpleName()
            + " could wrap, so bulk and native statements on guarded tables are not"
            + " detected; call HibernateCuckooGuards.markStale(entity) after running one");
  }

  /**
   * Root entities to guard, from {@link GuardedEntity} and {@link CuckooGuardSettings#ENTITIES}.
   *
   * @throws IllegalArgumentException for an unknown entity name, a bad annotation value, or an
   *     entity whose rows a {@code @SQLRestriction} can hide
   */
  static List<EntityConfig> guardedEntities(Metadata metadata, GuardSettings settings) {
    Set<String> unmatched = new HashSet<>(settings.entities());
    Map<String, EntityConfig> byRoot = new LinkedHashMap<>();
    Map<String, Boolean> fromRootAnnotation = new LinkedHashMap<>();
    for (PersistentClass entity : metadata.getEntityBindings()) {
      String rootName = entity.getRootClass().getEntityName();
      boolean listed =
          unmatched.remove(entity.getEntityName())
              | (entity.getClassName() != null && unmatched.remove(entity.getClassName()))
              | (entity.getJpaEntityName() != null && unmatched.remove(entity.getJpaEntityName()));
      GuardedEntity annotation = annotationOf(entity);
      if (annotation == null && !listed) {
        continue;
      }
      boolean isRoot = entity.getEntityName().equals(rootName);
      if (byRoot.containsKey(rootName)
          && (annotation == null
              || !isRoot
              || Boolean.TRUE.equals(fromRootAnnotation.get(rootName)))) {
        continue; // the root's own annotation wins over subclasses' and over the settings
      }
      checkNoRestriction(entity.getRootClass());
      GuardSpec spec =
          annotation == null
              ? settings.spec()
              : GuardSettings.withOverrides(
                  settings.spec(),
                  annotation.expectedInsertions(),
                  annotation.fpp(),
                  "@GuardedEntity on " + entity.getEntityName());
      byRoot.put(rootName, new EntityConfig(rootName, spec));
      fromRootAnnotation.put(rootName, annotation != null && isRoot);
    }
    if (!unmatched.isEmpty()) {
      throw new IllegalArgumentException(
          "setting "
              + CuckooGuardSettings.ENTITIES
              + " names "
              + unmatched
              + ", which "
              + (unmatched.size() == 1 ? "is" : "are")
              + " not mapped"
              + " entities; use entity names or fully qualified class names of mapped entities");
    }
    return new ArrayList<>(byRoot.values());
  }

  private static @Nullable GuardedEntity annotationOf(PersistentClass entity) {
    Class<?> mapped = entity.getMappedClass();
    return mapped == null ? null : mapped.getAnnotation(GuardedEntity.class);
  }

  private static void checkNoRestriction(PersistentClass root) {
    for (PersistentClass entity : root.getSubclassClosure()) {
      if (entity.getWhere() != null) {
        throw new IllegalArgumentException(
            "entity "
                + entity.getEntityName()
                + " has a"
                + " @SQLRestriction ("
                + entity.getWhere()
                + "), so an UPDATE can make a row appear"
                + " to find() without any insert event; it cannot be guarded. Remove @GuardedEntity"
                + " or its entry in "
                + CuckooGuardSettings.ENTITIES);
      }
    }
  }
}
