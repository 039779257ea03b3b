package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;

/**
 * Everything the integration keeps for one session factory: the guarded entities, the warm-up
 * executor, the bulk-statement bookkeeping, the sessions waiting to release their connection.
 * Reached from the public API through the listeners registered on the factory ({@link #of}).
 *
 * <p>Not API. Thread safety: thread-safe; the entity map is built once, on first use.
 */
public final class GuardRegistry implements SessionFactoryObserver {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.hibernate");

  /**
   * The filter Hibernate defines for a {@code @TenantId} column: {@code
   * TenantIdBinder.FILTER_NAME}, internal, so copied (the same value in 6.6 and 7.x).
   */
  private static final String TENANT_ID_FILTER = "_tenantId";

  private final SessionFactoryImplementor factory;
  private final GuardSettings settings;
  private final List<EntityConfig> configs;
  private final WarmUpExecutor executor;
  private final SessionReleases sessionReleases = new SessionReleases();
  private final TransactionEnds transactionEnds = new TransactionEnds();
  private final ClusterEnters clusterEnters = new ClusterEnters();
  private final BulkWrites bulkWrites = new BulkWrites(sessionReleases, transactionEnds);
  private final List<RebuildListener> rebuildListeners;
  private final Object readiness = new Object();
  private volatile @Nullable Map<String, EntityGuards> byName;
  private volatile @Nullable Replication replication;

  GuardRegistry(
      SessionFactoryImplementor factory, GuardSettings settings, List<EntityConfig> configs) {
    this.factory = factory;
    this.settings = settings;
    this.configs = List.copyOf(configs);
    this.executor = new WarmUpExecutor(Integer.toHexString(System.identityHashCode(factory)));
    this.rebuildListeners =
        List.of(
            new RebuildListener() {
              @Override
              public void onFinish(GuardStats stats) {
                signal();
              }

              @Override
              public void onFailure(Throwable cause) {
                signal();
              }
            });
  }

  /**
   * The registry of a session factory on which the integration is active.
   *
   * @throws IllegalArgumentException if no entity of {@code sessionFactory} is guarded
   */
  public static GuardRegistry of(SessionFactory sessionFactory) {
    SessionFactoryImplementor factory = sessionFactory.unwrap(SessionFactoryImplementor.class);
    var group =
        factory
            .getEventEngine()
            .getListenerRegistry()
            .getEventListenerGroup(org.hibernate.event.spi.EventType.POST_INSERT);
    List<GuardRegistry> found = new ArrayList<>(1);
    group.fireEventOnEachListener(
        found,
        (listener, list) -> {
          if (listener instanceof MembershipListener membership) {
            list.add(membership.registry());
          }
        });
    if (!found.isEmpty()) {
      return found.get(0);
    }
    throw new IllegalArgumentException(
        "Cuckoo guard is not active on session factory "
            + factory.getName()
            + ": annotate an entity with @GuardedEntity or list it in"
            + " hibernate.cuckoo.entities, leave hibernate.cuckoo.enabled unset or true, and keep"
            + " cuckoo-guard-hibernate on the class path when the factory is built");
  }

  /** Replicates every guard created from now on (set before the factory is created). */
  void replicate(Replication replication) {
    this.replication = replication;
  }

  @Nullable Replication replication() {
    return replication;
  }

  SessionFactoryImplementor factory() {
    return factory;
  }

  GuardSettings settings() {
    return settings;
  }

  WarmUpExecutor executor() {
    return executor;
  }

  BulkWrites bulkWrites() {
    return bulkWrites;
  }

  TransactionEnds transactionEnds() {
    return transactionEnds;
  }

  /** The inserts of open transactions not sent to the cluster yet (with cluster settings). */
  ClusterEnters clusterEnters() {
    return clusterEnters;
  }

  SessionReleases sessionReleases() {
    return sessionReleases;
  }

  List<RebuildListener> rebuildListeners() {
    return rebuildListeners;
  }

  /** The guards of an entity (by entity name or class name, any class of the hierarchy). */
  public @Nullable EntityGuards entity(String entityName) {
    return entities().get(entityName);
  }

  /**
   * The guards of an entity class.
   *
   * @throws IllegalArgumentException naming the class if it is not a guarded entity
   */
  public EntityGuards entity(Class<?> entityClass) {
    EntityGuards guards = entities().get(entityClass.getName());
    if (guards == null) {
      throw new IllegalArgumentException(
          entityClass.getName()
              + " is not a guarded entity of"
              + " session factory "
              + factory.getName()
              + "; guarded: "
              + guardedEntityNames()
              + ". Annotate it with @GuardedEntity or list it in hibernate.cuckoo.entities");
    }
    return guards;
  }

  /** Root entity names of every guarded hierarchy. */
  public Set<String> guardedEntityNames() {
    Set<String> names = new LinkedHashSet<>();
    for (EntityConfig config : configs) {
      names.add(config.rootEntityName());
    }
    return names;
  }

  /** Whether sessions of the factory carry a tenant id. */
  public boolean multiTenantFactory() {
    return multiTenant();
  }

  boolean multiTenant() {
    // separate schemas/databases, or a @TenantId discriminator column (a filter Hibernate defines)
    return factory.getSessionFactoryOptions().isMultiTenancyEnabled()
        || factory.getDefinedFilterNames().contains(TENANT_ID_FILTER);
  }

  /**
   * The tenant a session opened now would carry: {@code null} without multi-tenancy, otherwise what
   * the factory's {@code CurrentTenantIdentifierResolver} names.
   *
   * @throws IllegalStateException if the factory is multi-tenant and no resolver names a tenant
   */
  public @Nullable Object currentTenant(String hint) {
    if (!multiTenant()) {
      return null;
    }
    var resolver = factory.getCurrentTenantIdentifierResolver();
    Object tenant = resolver == null ? null : resolver.resolveCurrentTenantIdentifier();
    if (tenant == null) {
      throw new IllegalStateException(
          "session factory "
              + factory.getName()
              + " is multi-tenant"
              + " and no CurrentTenantIdentifierResolver (hibernate.tenant_identifier_resolver) names"
              + " the current tenant: "
              + hint);
    }
    return tenant;
  }

  /**
   * Whether {@code tenantId} is a root tenant of the factory's resolver, whose sessions see the
   * rows of every tenant; no tenant's guard covers them.
   */
  public boolean rootTenant(Object tenantId) {
    var resolver = factory.getCurrentTenantIdentifierResolver();
    return resolver != null && resolver.isRoot(tenantId);
  }

  private Map<String, EntityGuards> entities() {
    Map<String, EntityGuards> map = byName;
    if (map == null) {
      synchronized (this) {
        map = byName;
        if (map == null) {
          map = resolve();
          byName = map;
        }
      }
    }
    return map;
  }

  private Map<String, EntityGuards> resolve() {
    Map<String, EntityGuards> map = new HashMap<>();
    var metamodel = factory.getMappingMetamodel();
    for (EntityConfig config : configs) {
      EntityPersister root = metamodel.getEntityDescriptor(config.rootEntityName());
      EntityGuards guards = new EntityGuards(this, config, root);
      for (String name : root.getSubclassEntityNames()) {
        EntityPersister persister = metamodel.getEntityDescriptor(name);
        map.put(name, guards);
        Class<?> javaClass = persister.getMappedClass();
        if (javaClass != null) {
          map.put(javaClass.getName(), guards);
        }
      }
    }
    return Map.copyOf(map);
  }

  /** Every guard (all entities, all tenants seen so far). */
  public List<TenantGuard> allGuards() {
    List<TenantGuard> all = new ArrayList<>();
    for (EntityGuards guards : new LinkedHashSet<>(entities().values())) {
      all.addAll(guards.all());
    }
    return all;
  }

  /** Marks every guard stale, e.g. after a stored procedure whose effect is unknown. */
  void markAllStale(String reason) {
    for (EntityGuards guards : new LinkedHashSet<>(entities().values())) {
      guards.markStale(reason);
    }
  }

  /** Inspects a SQL statement about to be prepared; see {@link GuardStatementInspector}. */
  void beforeStatement(String sql) {
    SqlStatements.Kind kind = SqlStatements.classify(sql);
    if (kind == SqlStatements.Kind.READ) {
      return;
    }
    if (kind == SqlStatements.Kind.PROCEDURAL) {
      if (StatementOrigin.isNativeQueryOrProcedure()) {
        bulkWrites.statement(
            new LinkedHashSet<>(entities().values()),
            "a native statement with unknown effect ran: " + abbreviate(sql));
      }
      return;
    }
    Set<EntityGuards> affected = new LinkedHashSet<>();
    for (EntityGuards guards : entities().values()) {
      if (guards.affectedBy(kind, sql)) {
        affected.add(guards);
      }
    }
    if (!affected.isEmpty() && !StatementOrigin.isEntityPersister()) {
      bulkWrites.statement(
          affected, "a bulk or native statement changes its table: " + abbreviate(sql));
    }
  }

  private static String abbreviate(String sql) {
    String flat = sql.replaceAll("\\s+", " ").trim();
    return flat.length() <= 120 ? flat : flat.substring(0, 117) + "...";
  }

  /**
   * Waits until every guard has finished warming up and no rebuild is pending.
   *
   * @return false if the time ran out first
   */
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (readiness) {
      while (!ready()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(readiness, Math.min(left, 50_000_000L));
      }
      return true;
    }
  }

  private boolean ready() {
    for (TenantGuard guard : allGuards()) {
      GuardStats stats = guard.guard().stats();
      if (stats.passThrough() || stats.rebuilding()) {
        return false;
      }
    }
    return true;
  }

  private void signal() {
    synchronized (readiness) {
      readiness.notifyAll();
    }
  }

  // ---- SessionFactoryObserver ----

  @Override
  public void sessionFactoryCreated(SessionFactory sessionFactory) {
    Map<String, EntityGuards> map = entities();
    executor.open();
    if (!multiTenant()) {
      for (EntityGuards guards : new LinkedHashSet<>(map.values())) {
        guards.forTenant(null);
      }
    }
    LOGGER.log(
        Level.INFO,
        () ->
            "Cuckoo guard active on "
                + guardedEntityNames()
                + (multiTenant() ? " (per tenant, warmed up on first use)" : "; warming up"));
  }

  @Override
  public void sessionFactoryClosed(SessionFactory sessionFactory) {
    Replication r = replication;
    if (r != null) {
      r.close();
    }
    executor.close();
  }

  /** Releases holds left by statements outside an observed transaction; see {@link BulkWrites}. */
  public void changesCommitted(EntityGuards guards) {
    bulkWrites.release(guards);
  }
}
