package io.github.cuckooguard.hibernate.internal;

import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.PostDeleteEvent;
import org.hibernate.event.spi.PostDeleteEventListener;
import org.hibernate.event.spi.PostInsertEvent;
import org.hibernate.event.spi.PostInsertEventListener;
import org.hibernate.event.spi.PreInsertEvent;
import org.hibernate.event.spi.PreInsertEventListener;
import org.hibernate.event.spi.PreUpsertEvent;
import org.hibernate.event.spi.PreUpsertEventListener;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.resource.jdbc.spi.LogicalConnectionImplementor;
import org.jspecify.annotations.Nullable;

/**
 * Follows which ids exist: entity inserts and deletes of {@code Session} and {@code
 * StatelessSession} reach the guard of the root entity and tenant.
 *
 * <ul>
 *   <li>Inside a transaction: an insert enters at POST_INSERT (the row is not visible to other
 *       transactions before commit) and leaves again if the transaction rolls back; a delete
 *       leaves after commit. {@link TenantGuard} pairs both exactly.
 *   <li>Outside a transaction (a {@code StatelessSession} without one, or on a connection in
 *       auto-commit mode) the row is visible when its connection commits, which may be as late
 *       as when the session gives its connection back: the entity is held and marked stale
 *       before the insert and marked stale again after that ({@link BulkWrites}), so reads pass
 *       through until a rebuild that started after that. A delete outside a
 *       transaction is not applied (a leaked fingerprint, a false positive until the next
 *       rebuild), since nothing says whether it was committed.
 *   <li>An upsert may or may not insert, which nothing reports: held and stale from before it
 *       runs until its transaction completes (or, outside one, until its session ends).
 * </ul>
 *
 * <p>Thread safety: stateless apart from the registry; safe for concurrent sessions.
 */
final class MembershipListener
    implements PreInsertEventListener, PostInsertEventListener, PostDeleteEventListener,
        PreUpsertEventListener {

  private final GuardRegistry registry;

  MembershipListener(GuardRegistry registry) {
    this.registry = registry;
  }

  GuardRegistry registry() {
    return registry;
  }

  @Override
  public boolean onPreInsert(PreInsertEvent event) {
    SharedSessionContractImplementor session = event.getSession();
    if (!inTransaction(session)) {
      EntityGuards entity = registry.entity(event.getPersister().getEntityName());
      if (entity != null) {
        registry.bulkWrites().holdUntilSessionEnds(entity, session, "insert outside a transaction");
      }
    }
    return false;
  }

  @Override
  public void onPostInsert(PostInsertEvent event) {
    SharedSessionContractImplementor session = event.getSession();
    TenantGuard guard = guardFor(event.getPersister(), session);
    if (guard == null) {
      return;
    }
    // Entered whenever Hibernate reports a transaction, even on an auto-commit connection (which
    // onPreInsert held): entering early is never wrong, and whether the connection was known at
    // PRE_INSERT (it may be acquired in between) must not decide it.
    if (session.isTransactionInProgress()) {
      guard.insertFlushed(keyOf(guard, event.getId(), session), session);
    }
  }

  @Override
  public void onPostDelete(PostDeleteEvent event) {
    SharedSessionContractImplementor session = event.getSession();
    TenantGuard guard = guardFor(event.getPersister(), session);
    if (guard != null && inTransaction(session)) {
      guard.deleteFlushed(keyOf(guard, event.getId(), session), session);
    }
  }

  @Override
  public boolean onPreUpsert(PreUpsertEvent event) {
    SharedSessionContractImplementor session = event.getSession();
    EntityGuards entity = registry.entity(event.getPersister().getEntityName());
    if (entity != null) {
      if (inTransaction(session)) {
        registry.bulkWrites().holdForTransaction(entity, session, "upsert (it may insert)");
      } else {
        registry.bulkWrites().holdUntilSessionEnds(entity, session, "upsert outside a transaction");
      }
    }
    return false;
  }

  @Override
  public boolean requiresPostCommitHandling(EntityPersister persister) {
    return false;
  }

  /**
   * Whether a write runs in a transaction that commits later: Hibernate's own, or one the
   * application opened on a connection it supplied. Hibernate also reports a transaction in
   * progress for a supplied connection in auto-commit mode, where each statement commits as it
   * runs, so the connection's mode decides then.
   */
  private static boolean inTransaction(SharedSessionContractImplementor session) {
    if (!session.isTransactionInProgress()) {
      return false;
    }
    LogicalConnectionImplementor connection = session.getJdbcCoordinator().getLogicalConnection();
    // not connected yet: Hibernate's transaction will acquire it with auto-commit off; a driver
    // that will not say is read as auto-commit (the write is then held, which is safe)
    return !connection.isPhysicallyConnected() || Boolean.FALSE.equals(BulkWrites.autoCommit(connection));
  }

  private @Nullable TenantGuard guardFor(EntityPersister persister, SharedSessionContractImplementor session) {
    EntityGuards entity = registry.entity(persister.getEntityName());
    return entity == null ? null : entity.forTenant(session.getTenantIdentifierValue());
  }

  private static Object keyOf(TenantGuard guard, Object id, SharedSessionContractImplementor session) {
    return guard.entity().keys().keyOf(id, session);
  }
}
