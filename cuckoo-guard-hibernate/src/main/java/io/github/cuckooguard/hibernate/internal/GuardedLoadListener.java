package io.github.cuckooguard.hibernate.internal;

import org.hibernate.LockMode;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.LoadEvent;
import org.hibernate.event.spi.LoadEventListener;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;

/**
 * Replaces the LOAD listener group: answers {@code find}/{@code get}/{@code byId().load} of a
 * definitely absent id with {@code null}, without calling the listeners it wraps (so without SQL);
 * every other load goes to them unchanged.
 *
 * <p>Why a wrapper: Hibernate fires every listener of the LOAD group for each load ({@code
 * EventListenerGroup.fireEventOnEachListener}), so a prepended listener cannot stop the default one
 * from querying. Short-circuited only when all of these hold:
 *
 * <ul>
 *   <li>the load type is {@link LoadEventListener#GET}, the one behind {@code find}, {@code get}
 *       and {@code byId().load}; never {@code LOAD} (proxies, {@code getReference}), {@code
 *       IMMEDIATE_LOAD} (proxy initialisation), {@code INTERNAL_LOAD_*} (associations) or {@code
 *       RELOAD};
 *   <li>no instance to load into, and no pessimistic lock requested (a locking read of a missing
 *       row may be relied on for its gap lock);
 *   <li>the entity is guarded, the id has the entity's id type, and the persistence context holds
 *       neither the entity (persisted and not yet flushed, or removed) nor a proxy for it;
 *   <li>the session's tenant is not a root tenant (which sees every tenant's rows), and its guard
 *       is warmed up and says the id is definitely absent.
 * </ul>
 *
 * A load that passed the guard and found nothing is reported as a false positive when it asked for
 * the root entity (a subclass load may miss because the row has another subclass).
 *
 * <p>Thread safety: stateless apart from the registry; safe for concurrent sessions.
 */
final class GuardedLoadListener implements LoadEventListener {

  private final GuardRegistry registry;
  private final LoadEventListener[] delegates;

  GuardedLoadListener(GuardRegistry registry, LoadEventListener[] delegates) {
    this.registry = registry;
    this.delegates = delegates.clone();
  }

  @Override
  public void onLoad(LoadEvent event, LoadType loadType) {
    TenantGuard guard = guardToConsult(event, loadType);
    if (guard == null) {
      delegate(event, loadType);
      return;
    }
    guard.finds.increment();
    Object key = guard.entity().keys().keyOf(event.getEntityId(), event.getSession());
    if (guard.guard().isPassThrough()) {
      delegate(event, loadType);
      return;
    }
    if (!guard.mightContain(key)) {
      guard.shortCircuits.increment();
      event.setResult(null);
      return;
    }
    delegate(event, loadType);
    if (event.getResult() == null
        && guard.entity().entityName().equals(requestedEntityName(event))) {
      guard.falsePositives.increment();
      guard.guard().reportFalsePositive(key);
    }
  }

  private @Nullable TenantGuard guardToConsult(LoadEvent event, LoadType loadType) {
    if (loadType != LoadEventListener.GET
        || event.getInstanceToLoad() != null
        || locks(event.getLockOptions().getLockMode())) {
      return null;
    }
    EntityGuards entity = registry.entity(event.getEntityClassName());
    if (entity == null) {
      return null;
    }
    Object id = event.getEntityId();
    if (id == null || !entity.keys().accepts(id)) {
      return null;
    }
    SharedSessionContractImplementor session = event.getSession();
    EntityPersister persister =
        session.getFactory().getMappingMetamodel().getEntityDescriptor(event.getEntityClassName());
    var entityKey = session.generateEntityKey(id, persister);
    var persistenceContext = session.getPersistenceContextInternal();
    if (persistenceContext.containsEntity(entityKey)
        || persistenceContext.getProxy(entityKey) != null) {
      return null;
    }
    Object tenant = session.getTenantIdentifierValue();
    if (tenant != null && registry.rootTenant(tenant)) {
      // A root-tenant session reads every tenant's rows; no single tenant's guard covers them.
      return null;
    }
    return entity.forTenant(tenant);
  }

  /**
   * Whether a read with {@code mode} takes a database lock (LockMode.isPessimistic() is 7.x only;
   * this also counts WRITE and the UPGRADE modes, which only reach a load internally).
   */
  private static boolean locks(LockMode mode) {
    return mode != LockMode.NONE
        && mode != LockMode.READ
        && mode != LockMode.OPTIMISTIC
        && mode != LockMode.OPTIMISTIC_FORCE_INCREMENT;
  }

  private static String requestedEntityName(LoadEvent event) {
    return event
        .getSession()
        .getFactory()
        .getMappingMetamodel()
        .getEntityDescriptor(event.getEntityClassName())
        .getEntityName();
  }

  private void delegate(LoadEvent event, LoadType loadType) {
    for (LoadEventListener listener : delegates) {
      listener.onLoad(event, loadType);
    }
  }
}
