package io.github.cuckooguard.hibernate.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.hibernate.Transaction;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
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
  private final Set<EntityGuards> untracked = Collections.newSetFromMap(new IdentityHashMap<>());
  private final SessionReleases releases;
  private final TransactionEnds transactionEnds;

  BulkWrites(SessionReleases releases, TransactionEnds transactionEnds) {
    this.releases = releases;
    this.transactionEnds = transactionEnds;
  }

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
   * A statement that may change rows of {@code affected} is about to run on this thread: marks them
   * stale now and holds them until its transaction completes.
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
            LOGGER.log(
                Level.WARNING,
                () ->
                    "Cuckoo guard of "
                        + entity.entityName()
                        + ": a bulk"
                        + " or native statement ran outside a transaction the guard can observe; the"
                        + " guard stays in pass-through until HibernateCuckooGuards.markStale("
                        + entity.entityName()
                        + ") is called after the change is committed");
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
  void holdForTransaction(
      EntityGuards entity, SharedSessionContractImplementor session, String reason) {
    synchronized (this) {
      holds.merge(entity, 1, Integer::sum);
    }
    Runnable completed =
        () -> {
          release(entity, 1);
          entity.markStale(reason + " (its transaction completed)");
        };
    transactionEnds.after(session, completed, completed);
    entity.markStale(reason);
  }

  /**
   * An entity write outside a transaction whose rows nothing reports (an upsert, or an insert of an
   * id the INSERT itself generates) is about to run: holds {@code entity}, and marks it stale,
   * until the session has ended and given its connection back ({@link SessionReleases}), then marks
   * it stale again, so that the rebuild that clears pass-through starts after the row is visible.
   * On a connection the application supplied, with auto-commit off, only the application knows when
   * the write commits: the entity stays held until {@code markStale(entity)}.
   */
  void holdUntilSessionEnds(
      EntityGuards entity, SharedSessionContractImplementor session, String reason) {
    synchronized (this) {
      holds.merge(entity, 1, Integer::sum);
    }
    releases.after(
        session,
        new SessionReleases.Action() {
          @Override
          public void committed() {
            release(entity, 1);
            entity.markStale(reason + " (its session ended and gave its connection back)");
          }

          @Override
          public void unknown() {
            synchronized (BulkWrites.this) {
              untracked.add(entity);
            }
            release(entity, 1);
            LOGGER.log(
                Level.WARNING,
                () ->
                    "Cuckoo guard of "
                        + entity.entityName()
                        + ": "
                        + reason
                        + " on a connection the application supplied; the guard stays in pass-through until"
                        + " HibernateCuckooGuards.markStale("
                        + entity.entityName()
                        + ") is called after the"
                        + " change is committed");
          }
        });
    entity.markStale(reason);
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
