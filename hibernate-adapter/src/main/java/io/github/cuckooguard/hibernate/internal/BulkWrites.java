package io.github.cuckooguard.hibernate.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.hibernate.SessionEventListener;
import org.hibernate.Transaction;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.AfterCompletionCallback;
import org.hibernate.resource.jdbc.internal.LogicalConnectionProvidedImpl;
import org.hibernate.resource.jdbc.spi.LogicalConnectionImplementor;
import org.jspecify.annotations.Nullable;

/**
 * Bulk and native statements on guarded tables, held open until their transaction completes.
 *
 * <pre>
 * A statement that changes rows behind Hibernate's entity events (HQL/JPQL bulk insert, update
 * of a soft-delete flag or delete, native SQL, stored procedures) makes the guard stale twice:
 *
 *   before it runs     markStale, so nobody is told "absent" about a row it is about to add;
 *   after it commits   markStale again, so that the rebuild that clears pass-through starts
 *                      only when the new rows are visible to its scan.
 *
 * In between the entity is "held": a rebuild that starts then fails on purpose (the guard stays
 * in pass-through), because its scan could miss rows the statement adds at commit. The
 * transaction is known through the Hibernate Interceptor callbacks afterTransactionBegin /
 * afterTransactionCompletion (GuardInterceptor). A statement run outside a transaction that the
 * interceptor saw (autocommit, a session opened with its own interceptor, an unobserved JTA
 * transaction) holds the entity until the application says the change is done, through
 * HibernateCuckooGuards.markStale(entity).
 * </pre>
 *
 * <p>Thread safety: all methods may be called from any thread; state changes under this object's
 * monitor, the transaction stack is per thread.
 */
final class BulkWrites {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.hibernate");

  private final ThreadLocal<Deque<Transaction>> openTransactions =
      ThreadLocal.withInitial(ArrayDeque::new);
  private final Map<Transaction, Set<EntityGuards>> byTransaction = new IdentityHashMap<>();
  private final Map<EntityGuards, Integer> holds = new IdentityHashMap<>();
  private final Set<EntityGuards> untracked =
      Collections.newSetFromMap(new IdentityHashMap<>());

  /** A Hibernate transaction began on this thread. */
  void transactionBegan(@Nullable Transaction transaction) {
    if (transaction != null) {
      openTransactions.get().push(transaction);
    }
  }

  /** A Hibernate transaction completed (on this or, with JTA, another thread). */
  void transactionCompleted(@Nullable Transaction transaction) {
    if (transaction == null) {
      return;
    }
    openTransactions.get().remove(transaction);
    Set<EntityGuards> released;
    synchronized (this) {
      released = byTransaction.remove(transaction);
      if (released == null) {
        return;
      }
      for (EntityGuards entity : released) {
        release(entity, 1);
      }
    }
    for (EntityGuards entity : released) {
      entity.markStale("the transaction of a bulk or native statement on its tables completed");
    }
  }

  /**
   * A statement that may change rows of {@code affected} is about to run on this thread: marks
   * them stale now and holds them until its transaction completes.
   */
  void statement(Collection<EntityGuards> affected, String reason) {
    // Hold first, then mark stale: a rebuild requested by markStale must already see the hold.
    Transaction transaction = currentTransaction();
    synchronized (this) {
      if (transaction != null) {
        Set<EntityGuards> entities =
            byTransaction.computeIfAbsent(
                transaction, t -> Collections.newSetFromMap(new IdentityHashMap<>()));
        for (EntityGuards entity : affected) {
          if (entities.add(entity)) {
            holds.merge(entity, 1, Integer::sum);
          }
        }
      } else {
        for (EntityGuards entity : affected) {
          if (untracked.add(entity)) {
            LOGGER.log(Level.WARNING, () -> "Cuckoo guard of " + entity.entityName() + ": a bulk"
                + " or native statement ran outside a transaction the guard can observe; the"
                + " guard stays in pass-through until HibernateCuckooGuards.markStale("
                + entity.entityName() + ") is called after the change is committed");
          }
        }
      }
    }
    for (EntityGuards entity : affected) {
      entity.markStale(reason);
    }
  }

  /**
   * An entity write whose effect nothing reports exactly (an upsert) ran in the session's
   * transaction: holds {@code entity} until that transaction completes, then marks it stale again.
   */
  void holdForTransaction(EntityGuards entity, SharedSessionContractImplementor session, String reason) {
    synchronized (this) {
      holds.merge(entity, 1, Integer::sum);
    }
    session.getTransactionCompletionCallbacks().registerCallback(
        (AfterCompletionCallback) (success, s) -> {
          release(entity, 1);
          entity.markStale(reason + " (its transaction completed)");
        });
    entity.markStale(reason);
  }

  /**
   * An entity write outside a transaction (an insert or upsert of a {@code StatelessSession}
   * without one) is about to run. When its row becomes visible to other connections depends on
   * the connection's auto-commit setting and pool: with auto-commit off, Hibernate's built-in
   * pool commits when the connection is given back (it switches auto-commit on), other pools may
   * roll back. So the entity is held, and stale, until the session has ended <em>and</em> given
   * its connection back, then marked stale again: the rebuild that clears pass-through starts
   * after the row is visible. Two earlier release points were too early, each seen in CI as a
   * false negative: POST_INSERT (before any commit), and {@code SessionEventListener.end()}
   * alone (Hibernate calls it before it closes the session's JDBC coordinator).
   *
   * <p>A connection in auto-commit mode committed the write as it ran: released when the session
   * ends. A connection the application supplied, with auto-commit off, is never given back to
   * Hibernate: its write is treated like an unobserved bulk statement (held until {@code
   * markStale(entity)}).
   */
  void holdUntilSessionEnds(EntityGuards entity, SharedSessionContractImplementor session, String reason) {
    synchronized (this) {
      holds.merge(entity, 1, Integer::sum);
    }
    session.getEventListenerManager().addListener(new SessionHold(entity, session, reason));
    entity.markStale(reason);
  }

  /** Releases one {@link #holdUntilSessionEnds} hold once the session ended and let go of its connection. */
  private final class SessionHold implements SessionEventListener {
    private final EntityGuards entity;
    private final SharedSessionContractImplementor session;
    private final String reason;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean ended;

    SessionHold(EntityGuards entity, SharedSessionContractImplementor session, String reason) {
      this.entity = entity;
      this.session = session;
      this.reason = reason;
    }

    @Override
    public void end() {
      ended = true;
      LogicalConnectionImplementor connection = session.getJdbcCoordinator().getLogicalConnection();
      if (!connection.isPhysicallyConnected() || Boolean.TRUE.equals(autoCommit(connection))) {
        releaseOnce(); // given back, never taken, or committed as it ran: visible now
      } else if (connection instanceof LogicalConnectionProvidedImpl) {
        // the application's own connection, with auto-commit off: only the application knows
        // when it commits
        if (released.compareAndSet(false, true)) {
          synchronized (BulkWrites.this) {
            untracked.add(entity);
          }
          release(entity, 1);
          LOGGER.log(Level.WARNING, () -> "Cuckoo guard of " + entity.entityName() + ": "
              + reason + " on a connection the application supplied; the guard stays in"
              + " pass-through until HibernateCuckooGuards.markStale(" + entity.entityName()
              + ") is called after the change is committed");
        }
      }
      // else: jdbcConnectionReleaseEnd follows, when the session closes its JDBC coordinator
    }

    @Override
    public void jdbcConnectionReleaseEnd() {
      if (ended) {
        releaseOnce();
      }
    }

    private void releaseOnce() {
      if (released.compareAndSet(false, true)) {
        release(entity, 1);
        entity.markStale(reason + " (its session ended and gave its connection back)");
      }
    }
  }

  /**
   * Whether {@code connection} commits each statement as it runs; null if it holds no physical
   * connection or the driver would not say. Callers pick the safe reading of null.
   */
  static @Nullable Boolean autoCommit(LogicalConnectionImplementor connection) {
    if (!connection.isPhysicallyConnected()) {
      return null;
    }
    try {
      return connection.getPhysicalConnection().getAutoCommit();
    } catch (SQLException | RuntimeException unknown) {
      return null;
    }
  }

  private synchronized void release(EntityGuards entity, int count) {
    holds.computeIfPresent(entity, (e, n) -> n <= count ? null : n - count);
  }

  /** Whether a rebuild of {@code entity} must wait because a statement's changes may be hidden. */
  synchronized boolean held(EntityGuards entity) {
    return holds.containsKey(entity) || untracked.contains(entity);
  }

  /** The application says every change to {@code entity} is committed: lifts untracked holds. */
  synchronized void release(EntityGuards entity) {
    untracked.remove(entity);
  }

  private @Nullable Transaction currentTransaction() {
    Deque<Transaction> stack = openTransactions.get();
    while (!stack.isEmpty()) {
      Transaction top = stack.peek();
      if (isActive(top)) {
        return top;
      }
      stack.pop(); // completed elsewhere (JTA) without a callback on this thread
    }
    return null;
  }

  private static boolean isActive(Transaction transaction) {
    try {
      return transaction.isActive();
    } catch (RuntimeException closed) {
      return false;
    }
  }
}
