package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.RebuildListener;
import io.github.cuckooguard.hibernate.EntityGuardStats;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.hibernate.ScrollMode;
import org.hibernate.StatelessSession;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;

/**
 * The guards of one root entity (one per tenant), and what they share: how ids become keys, which
 * tables the entity lives in, how its ids are scanned.
 *
 * <p>Not API. Thread safety: immutable apart from the tenant map, which is concurrent.
 */
public final class EntityGuards {

  /** Key of the tenant map for sessions without a tenant. */
  private static final Object NO_TENANT = new Object();

  private final GuardRegistry registry;
  private final EntityConfig config;
  private final EntityPersister root;
  private final IdKeys keys;
  private final Set<String> tables;
  private final boolean softDelete;
  private final ConcurrentHashMap<Object, TenantGuard> byTenant = new ConcurrentHashMap<>();

  EntityGuards(GuardRegistry registry, EntityConfig config, EntityPersister root) {
    this.registry = registry;
    this.config = config;
    this.root = root;
    this.keys = new IdKeys(root.getIdentifierMapping(), root.getEntityName());
    this.softDelete = root.getSoftDeleteMapping() != null;
    Set<String> names = new LinkedHashSet<>();
    var metamodel = registry.factory().getMappingMetamodel();
    for (String entityName : root.getSubclassEntityNames()) {
      for (String space : metamodel.getEntityDescriptor(entityName).getPropertySpaces()) {
        names.add(SqlStatements.normalizeTableName(space));
      }
    }
    this.tables = Set.copyOf(names);
  }

  GuardRegistry registry() {
    return registry;
  }

  String entityName() {
    return root.getEntityName();
  }

  IdKeys keys() {
    return keys;
  }

  /** Whether a statement of this kind on one of the entity's tables can change which ids exist. */
  boolean affectedBy(SqlStatements.Kind kind, String sql) {
    if (kind != SqlStatements.Kind.ROW_CHANGE
        && !(kind == SqlStatements.Kind.UPDATE && softDelete)) {
      return false;
    }
    for (String table : tables) {
      if (SqlStatements.mentionsTable(sql, table)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a bulk statement's transaction is still open; see {@link BulkWrites}. */
  boolean held() {
    return registry.bulkWrites().held(this);
  }

  /** The guard for a session's tenant, created (and warming up) on first use. */
  TenantGuard forTenant(@Nullable Object tenantId) {
    Object key = tenantId == null ? NO_TENANT : tenantId;
    TenantGuard existing = byTenant.get(key);
    return existing != null ? existing : byTenant.computeIfAbsent(key, k -> create(tenantId));
  }

  List<TenantGuard> all() {
    return List.copyOf(byTenant.values());
  }

  /** A snapshot of the guard of {@code tenantId} (created, and warming up, if new). */
  public EntityGuardStats stats(@Nullable Object tenantId) {
    TenantGuard guard = forTenant(tenantId);
    return new EntityGuardStats(
        entityName(),
        tenantId,
        guard.finds.sum(),
        guard.shortCircuits.sum(),
        guard.falsePositives.sum(),
        guard.guard().stats());
  }

  /**
   * Whether a row with {@code id} might exist for the tenant, asked outside any session: true for
   * an id of another type than the entity's id (no canonical key for it) and for a composite id
   * that contains an association (its key needs a session). Creates, and starts warming up, the
   * guard of a tenant not seen before; it answers true until warmed up.
   */
  public boolean mightContain(Object id, @Nullable Object tenantId) {
    if (!keys.accepts(id) || !keys.keyableWithoutSession()) {
      return true;
    }
    return forTenant(tenantId).mightContain(keys.keyOf(id, null));
  }

  /** Rebuilds every tenant's guard; completes when all have swapped in their new filter. */
  public CompletableFuture<Void> rebuild() {
    return CompletableFuture.allOf(
        byTenant.values().stream()
            .map(guard -> guard.guard().rebuild())
            .toArray(CompletableFuture[]::new));
  }

  /** Switches every tenant's guard to pass-through and requests a rebuild. */
  public void markStale(String reason) {
    for (TenantGuard guard : byTenant.values()) {
      guard.guard().markStale(reason);
    }
  }

  private TenantGuard create(@Nullable Object tenantId) {
    String name = root.getEntityName() + (tenantId == null ? "" : "[tenant " + tenantId + "]");
    CuckooGuard.Builder<Object> builder =
        CuckooGuard.newBuilder(keys).name(name).spec(config.spec()).executor(registry.executor());
    for (RebuildListener listener : registry.rebuildListeners()) {
      builder.addListener(listener);
    }
    TenantGuard guard = new TenantGuard(this, tenantId, builder);
    guard.guard().markStale("warm-up: reads pass through until the first id scan completes");
    return guard;
  }

  /**
   * Streams the ids of every row of the entity (all subclasses) visible to a new transaction of the
   * tenant, as keys.
   */
  void scanKeys(@Nullable Object tenantId, Consumer<Object> sink) throws InterruptedException {
    SessionFactoryImplementor factory = registry.factory();
    var builder = factory.withStatelessOptions();
    if (tenantId != null) {
      builder.tenantIdentifier(tenantId);
    }
    try (StatelessSession session = builder.openStatelessSession()) {
      var transaction = session.beginTransaction();
      try {
        var query =
            session
                .createSelectionQuery(
                    "select id(e) from " + root.getEntityName() + " e", Object.class)
                .setFetchSize(registry.settings().scanFetchSize())
                .setReadOnly(true);
        try (var rows = query.scroll(ScrollMode.FORWARD_ONLY)) {
          long n = 0;
          while (rows.next()) {
            if ((++n & 1023) == 0 && Thread.currentThread().isInterrupted()) {
              throw new InterruptedException("id scan of " + root.getEntityName() + " interrupted");
            }
            sink.accept(keys.keyOf(rows.get(), (SharedSessionContractImplementor) session));
          }
        }
      } finally {
        transaction.rollback();
      }
    }
  }
}
