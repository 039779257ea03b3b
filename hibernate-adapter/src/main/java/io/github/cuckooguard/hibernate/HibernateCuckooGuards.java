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
 * The guards of one session factory: statistics, warm-up, and the switch for writes made
 * behind Hibernate's back.
 *
 * <pre>{@code
 * HibernateCuckooGuards guards = HibernateCuckooGuards.of(sessionFactory);
 * guards.awaitWarmUp(Duration.ofSeconds(30));
 * EntityGuardStats stats = guards.stats(User.class);
 * guards.markStale(User.class);   // after a batch job wrote the users table over JDBC
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
   * Statistics of {@code entity}'s guard in a factory without multi-tenancy.
   *
   * @param entity a guarded entity class or any class of its hierarchy
   * @throws NullPointerException if {@code entity} is null
   * @throws IllegalArgumentException if {@code entity} is not guarded
   * @throws IllegalStateException if the factory is multi-tenant: use {@link #stats(Class,
   *     Object)}
   */
  public EntityGuardStats stats(Class<?> entity) {
    return stats(entity, null);
  }

  /**
   * Statistics of {@code entity}'s guard for one tenant. A tenant whose guard was not used yet
   * gets one, which starts warming up.
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
      throw new IllegalStateException("session factory is multi-tenant: call stats("
          + entity.getSimpleName() + ".class, tenantId)");
    }
    return guards.stats(tenantId);
  }

  /**
   * Declares that rows of {@code entity} were inserted or deleted without Hibernate's entity
   * events (JDBC, another application, a stored procedure, a statement the guard could not
   * attribute): every tenant's guard of the entity passes reads through to the database until a
   * rebuild from a fresh id scan completes. Call it once the change is committed (calling it
   * before as well closes the window in between). Also lifts the hold left by a bulk statement
   * that ran outside a transaction the guard could observe.
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
   * @return completes when every rebuild that started after this call has swapped in its filter,
   *     or exceptionally with the first failure
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
   * @return true if ready, false if the time ran out (a scan still running, or failing: see
   *     {@link io.github.cuckooguard.GuardStats#lastRebuildFailure()})
   * @throws NullPointerException if {@code timeout} is null
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitWarmUp(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    return registry.awaitReady(timeout);
  }
}
