package io.github.cuckooguard.hibernate;

import io.github.cuckooguard.hibernate.internal.EntityGuards;
import io.github.cuckooguard.hibernate.internal.GuardRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.hibernate.SessionFactory;
import org.jspecify.annotations.Nullable;

/**
 * The guards of one session factory: statistics, warm-up, the switch for writes made behind
 * Hibernate's back, and the guard's answer for callers that want to skip more than the SQL of a
 * find (a framework that would otherwise open a transaction first).
 *
 * <pre>{@code
 * HibernateCuckooGuards guards = HibernateCuckooGuards.of(sessionFactory);
 * guards.awaitWarmUp(Duration.ofSeconds(30));
 * EntityGuardStats stats = guards.stats(User.class);
 * guards.markStale(User.class);   // after a batch job wrote the users table over JDBC
 * if (!guards.mightContain(User.class, id)) { … }   // definitely no such user, without SQL
 * }</pre>
 *
 * <p>Obtaining an instance is cheap; it holds no state of its own. Thread safety: every method may
 * be called from any thread.
 */
public final class HibernateCuckooGuards {

  private final GuardRegistry registry;

  private HibernateCuckooGuards(GuardRegistry registry) {
    this.registry = registry;
  }

  /**
   * The guards of {@code sessionFactory} (a JPA {@code EntityManagerFactory} unwrapped to {@link
   * SessionFactory} works too).
   *
   * @throws NullPointerException if {@code sessionFactory} is null
   * @throws IllegalArgumentException if no entity of the factory is guarded (none annotated with
   *     {@link GuardedEntity} or listed in {@link CuckooGuardSettings#ENTITIES}, or {@link
   *     CuckooGuardSettings#ENABLED} is false)
   */
  public static HibernateCuckooGuards of(SessionFactory sessionFactory) {
    Objects.requireNonNull(sessionFactory, "sessionFactory");
    return new HibernateCuckooGuards(GuardRegistry.of(sessionFactory));
  }

  /** The root entity names of the guarded hierarchies. */
  public Set<String> guardedEntities() {
    return registry.guardedEntityNames();
  }

  /**
   * Whether {@code entity} is guarded in this factory: it, or another class of its inheritance
   * hierarchy, is annotated with {@link GuardedEntity} or listed in {@link
   * CuckooGuardSettings#ENTITIES}.
   *
   * @param entity any class; false for one that is not a mapped entity
   * @throws NullPointerException if {@code entity} is null
   */
  public boolean isGuarded(Class<?> entity) {
    Objects.requireNonNull(entity, "entity");
    return registry.entity(entity.getName()) != null;
  }

  /**
   * Whether a row of {@code entity} with id {@code id} might exist, asked outside any session, for
   * the tenant a session opened now would carry (none without multi-tenancy; otherwise the tenant
   * the factory's {@code CurrentTenantIdentifierResolver} names). See {@link #mightContain(Class,
   * Object, Object)} for what the answer means.
   *
   * @param entity a guarded entity class or any class of its hierarchy
   * @param id the id, as it would be passed to {@code Session.find}
   * @throws NullPointerException if {@code entity} or {@code id} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded
   * @throws IllegalStateException if the factory is multi-tenant and its resolver names no tenant
   *     (or there is none): pass the tenant to {@link #mightContain(Class, Object, Object)}
   */
  public boolean mightContain(Class<?> entity, Object id) {
    Objects.requireNonNull(entity, "entity");
    Objects.requireNonNull(id, "id");
    EntityGuards guards = registry.entity(entity);
    Object tenantId =
        registry.currentTenant(
            "call mightContain(" + entity.getSimpleName() + ".class, tenantId, id)");
    return mightContain(guards, tenantId, id);
  }

  /**
   * Whether a row of {@code entity} with id {@code id} might exist for one tenant, asked outside
   * any session: the question {@code Session.find} puts to the guard before its SQL, for callers
   * that want to skip more than the SQL (a transaction, a connection, a remote call).
   *
   * <p>{@code false} means definitely absent: no committed row has this id, and no transaction that
   * is still open has flushed an insert of it through this factory (such an insert enters the guard
   * when it is flushed, a delete leaves it when its transaction commits). The answer knows nothing
   * of persistence contexts: an entity persisted in an open session and not yet flushed is unknown
   * to it, although {@code find} in that session returns it. Inside a session with pending changes,
   * call {@code Session.find}, which consults the session first.
   *
   * <p>{@code true} means the row might exist; it is also the answer whenever the guard cannot
   * tell: while it warms up or rebuilds after writes it could not follow, for an id that is not an
   * instance of the entity's id type, for a composite id that contains an association (its key can
   * only be computed inside a session), and for a root tenant of the resolver (whose sessions see
   * every tenant's rows).
   *
   * <p>Each call counts a lookup, and a definite miss when it answers {@code false}, in {@link
   * EntityGuardStats#guard()}; {@link EntityGuardStats#finds()} and {@link
   * EntityGuardStats#shortCircuits()} count only loads of a {@code Session}. A tenant not seen
   * before gets its guard, which starts warming up. Lock-free apart from that first use.
   *
   * @param entity a guarded entity class or any class of its hierarchy
   * @param tenantId the tenant, or null in a factory without multi-tenancy
   * @param id the id, as it would be passed to {@code Session.find}
   * @throws NullPointerException if {@code entity} or {@code id} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded, or {@code tenantId} is not
   *     null in a factory without multi-tenancy
   * @throws IllegalStateException if {@code tenantId} is null in a multi-tenant factory
   */
  public boolean mightContain(Class<?> entity, @Nullable Object tenantId, Object id) {
    Objects.requireNonNull(entity, "entity");
    Objects.requireNonNull(id, "id");
    EntityGuards guards = registry.entity(entity);
    if (tenantId == null && registry.multiTenantFactory()) {
      throw new IllegalStateException(
          "session factory is multi-tenant: pass the tenant to"
              + " mightContain("
              + entity.getSimpleName()
              + ".class, tenantId, id)");
    }
    if (tenantId != null && !registry.multiTenantFactory()) {
      throw new IllegalArgumentException(
          "session factory is not multi-tenant, but tenant "
              + tenantId
              + " was given: pass null, or call mightContain("
              + entity.getSimpleName()
              + ".class, id)");
    }
    return mightContain(guards, tenantId, id);
  }

  private boolean mightContain(EntityGuards guards, @Nullable Object tenantId, Object id) {
    return (tenantId != null && registry.rootTenant(tenantId)) || guards.mightContain(id, tenantId);
  }

  /**
   * Statistics of {@code entity}'s guard in a factory without multi-tenancy.
   *
   * @param entity a guarded entity class or any class of its hierarchy
   * @throws NullPointerException if {@code entity} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded
   * @throws IllegalStateException if the factory is multi-tenant: use {@link #stats(Class, Object)}
   */
  public EntityGuardStats stats(Class<?> entity) {
    return stats(entity, null);
  }

  /**
   * Statistics of {@code entity}'s guard for one tenant. A tenant whose guard was not used yet gets
   * one, which starts warming up.
   *
   * @param tenantId the tenant, or null in a factory without multi-tenancy
   * @throws NullPointerException if {@code entity} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded
   * @throws IllegalStateException if {@code tenantId} is null in a multi-tenant factory
   */
  public EntityGuardStats stats(Class<?> entity, @Nullable Object tenantId) {
    Objects.requireNonNull(entity, "entity");
    EntityGuards guards = registry.entity(entity);
    if (tenantId == null && registry.multiTenantFactory()) {
      throw new IllegalStateException(
          "session factory is multi-tenant: call stats("
              + entity.getSimpleName()
              + ".class, tenantId)");
    }
    return guards.stats(tenantId);
  }

  /**
   * Declares that rows of {@code entity} were inserted or deleted without Hibernate's entity events
   * (JDBC, another application, a stored procedure, a statement the guard could not attribute):
   * every tenant's guard of the entity passes reads through to the database until a rebuild from a
   * fresh id scan completes. Call it once the change is committed (calling it before as well closes
   * the window in between). Also lifts the hold left by a bulk statement that ran outside a
   * transaction the guard could observe.
   *
   * @throws NullPointerException if {@code entity} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded
   */
  public void markStale(Class<?> entity) {
    Objects.requireNonNull(entity, "entity");
    EntityGuards guards = registry.entity(entity);
    registry.changesCommitted(guards);
    guards.markStale("HibernateCuckooGuards.markStale(" + entity.getName() + ")");
  }

  /**
   * Rebuilds every tenant's guard of {@code entity} from a fresh id scan now.
   *
   * @return completes when every rebuild that started after this call has swapped in its filter, or
   *     exceptionally with the first failure
   * @throws NullPointerException if {@code entity} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded
   */
  public CompletableFuture<Void> rebuild(Class<?> entity) {
    Objects.requireNonNull(entity, "entity");
    return registry.entity(entity).rebuild();
  }

  /**
   * Waits until every guard has finished its warm-up scan and no rebuild is pending, i.e. until
   * finds of absent ids are short-circuited again.
   *
   * @param timeout how long to wait at most
   * @return true if ready, false if the time ran out (a scan still running, or failing: see {@link
   *     io.github.cuckooguard.GuardStats#lastRebuildFailure()})
   * @throws NullPointerException if {@code timeout} is null
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitWarmUp(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    return registry.awaitReady(timeout);
  }
}
