package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.spi.ReplicatedGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.hibernate.HibernateException;
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
 *
 * With a cluster the other application instances cannot see such a write either, so each one is
 * held too (ReplicatedGuard.hold, one round trip per guard of the entity), once per transaction
 * and entity, before the statement runs (the StatementInspector sees the SQL before it is
 * executed; PRE_UPSERT comes before the upsert's statement). When the hold returns, every instance
 * that can still answer "no such row" answers "might exist" for every id of the entity; one that
 * did not acknowledge was waited out (its lease ran out) and cannot rejoin before the release. The
 * release is sent where the local hold ends, after the local markStale that follows the commit or
 * rollback; each instance then marks its guard stale before it stops holding, so it answers "no
 * such row" again only after its own id scan that started after the commit. If the cluster cannot
 * be held in time, the statement does not run (the inspector or the PRE_UPSERT listener throws).
 * An instance that leaves the cluster before its transaction completes has its holds ended by the
 * others (after markStale); a transaction that still commits after that, on a process that kept
 * running without its member, is outside the promise, like a write from outside the group.
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

  /** The cluster holds of each transaction's statements, per entity (with a cluster only). */
  private final Map<Transaction, Map<EntityGuards, List<ReplicatedGuard.Hold>>> groupHolds =
      new IdentityHashMap<>();

  /** The cluster holds of statements outside an observed transaction, until markStale(entity). */
  private final Map<EntityGuards, List<ReplicatedGuard.Hold>> untrackedGroupHolds =
      new IdentityHashMap<>();

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
    Map<EntityGuards, List<ReplicatedGuard.Hold>> group;
    synchronized (this) {
      released = byTransaction.remove(transaction);
      group = groupHolds.remove(transaction);
      if (released != null) {
        for (EntityGuards entity : released) {
          release(entity, 1);
        }
      }
    }
    if (released != null) {
      for (EntityGuards entity : released) {
        entity.markStale("the transaction of a bulk or native statement on its tables completed");
      }
    }
    if (group != null) { // after the commit or rollback: every instance rescans after this
      group.values().forEach(BulkWrites::releaseGroup);
    }
  }

  /**
   * A statement that may change rows of {@code affected} is about to run on this thread: marks them
   * stale now and holds them until its transaction completes.
   */
  void statement(Collection<EntityGuards> affected, String reason) {
    // Hold first, then mark stale: a rebuild requested by markStale must already see the hold.
    Transaction transaction = currentTransaction();
    List<EntityGuards> toHoldInGroup = new ArrayList<>();
    synchronized (this) {
      if (transaction != null) {
        Set<EntityGuards> entities =
            byTransaction.computeIfAbsent(
                transaction, t -> Collections.newSetFromMap(new IdentityHashMap<>()));
        Map<EntityGuards, List<ReplicatedGuard.Hold>> heldInGroup =
            groupHolds.getOrDefault(transaction, Map.of());
        for (EntityGuards entity : affected) {
          if (entities.add(entity)) {
            holds.merge(entity, 1, Integer::sum);
          }
          if (!heldInGroup.containsKey(entity)) { // not yet, or an earlier attempt failed
            toHoldInGroup.add(entity);
          }
        }
      } else {
        for (EntityGuards entity : affected) {
          if (!untrackedGroupHolds.containsKey(entity)) {
            toHoldInGroup.add(entity);
          }
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
    for (EntityGuards entity : toHoldInGroup) {
      List<ReplicatedGuard.Hold> taken = holdGroup(entity, reason); // throws: the statement fails
      if (taken.isEmpty()) {
        continue; // no cluster
      }
      boolean recorded;
      synchronized (this) {
        if (transaction != null) {
          recorded = byTransaction.containsKey(transaction); // else it completed meanwhile (JTA)
          if (recorded) {
            if (!groupHolds.containsKey(transaction)) {
              fenceAtCommit(transaction, this::heldInGroup);
            }
            groupHolds
                .computeIfAbsent(transaction, t -> new IdentityHashMap<>())
                .merge(entity, taken, BulkWrites::concat);
          }
        } else {
          untrackedGroupHolds.merge(entity, taken, BulkWrites::concat);
          recorded = true;
        }
      }
      if (!recorded) {
        releaseGroup(taken);
      }
    }
  }

  /**
   * Holds every other application instance's guards of {@code entity} (every tenant guard that
   * exists here) in pass-through; an empty list without a cluster.
   *
   * @throws HibernateException if the cluster could not be held in time (the holds taken so far are
   *     released): the write must not run
   */
  private static List<ReplicatedGuard.Hold> holdGroup(EntityGuards entity, String reason) {
    List<ReplicatedGuard.Hold> taken = new ArrayList<>();
    try {
      for (TenantGuard guard : entity.all()) {
        ReplicatedGuard<Object> replicated = guard.replicated();
        if (replicated != null) {
          taken.add(replicated.hold());
        }
      }
    } catch (InterruptedException | RuntimeException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      releaseGroup(taken); // the write does not run: releasing now is safe
      throw new HibernateException(
          "the cluster could not be held in pass-through for "
              + entity.entityName()
              + " before a write it cannot see ("
              + reason
              + "); the write must not run",
          e);
    }
    return taken;
  }

  private synchronized List<ReplicatedGuard.Hold> heldInGroup(Transaction transaction) {
    List<ReplicatedGuard.Hold> all = new ArrayList<>();
    groupHolds.getOrDefault(transaction, Map.of()).values().forEach(all::addAll);
    return all;
  }

  /**
   * Fences the cluster holds of {@code transaction} in its beforeCompletion, just before the
   * commit: if this instance may have been removed from the cluster meanwhile (a pause longer than
   * its failure detection), the others end its holds a lease after the removal and may rebuild
   * before the commit, so the transaction must not commit. The exception makes Hibernate roll it
   * back. Left: a pause between this check and the database's commit of about a lease or longer
   * (see the cluster package's assumption A4).
   */
  private static void fenceAtCommit(
      Transaction transaction, Function<Transaction, List<ReplicatedGuard.Hold>> holds) {
    Runnable fence =
        () -> {
          for (ReplicatedGuard.Hold hold : holds.apply(transaction)) {
            try {
              hold.fence();
            } catch (InterruptedException | RuntimeException e) {
              if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
              }
              throw new HibernateException(
                  "this application instance may have left the cluster while its transaction ran"
                      + " a bulk or native statement (the other instances stop holding for it);"
                      + " the transaction is rolled back. Retry it once the cluster has settled",
                  e);
            }
          }
        };
    BeforeCompletion.register(transaction, fence);
  }

  private static void releaseGroup(List<ReplicatedGuard.Hold> taken) {
    for (ReplicatedGuard.Hold hold : taken) {
      try {
        hold.release();
      } catch (RuntimeException e) {
        LOGGER.log(Level.WARNING, "could not release a cluster hold", e);
      }
    }
  }

  private static List<ReplicatedGuard.Hold> concat(
      List<ReplicatedGuard.Hold> a, List<ReplicatedGuard.Hold> b) {
    List<ReplicatedGuard.Hold> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /**
   * An entity write whose effect nothing reports exactly (an upsert) ran in the session's
   * transaction: holds {@code entity} until that transaction completes, then marks it stale again.
   */
  void holdForTransaction(
      EntityGuards entity, SharedSessionContractImplementor session, String reason) {
    List<ReplicatedGuard.Hold> group = holdGroup(entity, reason); // first: it may throw
    synchronized (this) {
      holds.merge(entity, 1, Integer::sum);
    }
    if (!group.isEmpty()) {
      fenceAtCommit(session.accessTransaction(), t -> group);
    }
    Runnable completed =
        () -> {
          release(entity, 1);
          entity.markStale(reason + " (its transaction completed)");
          releaseGroup(group);
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
    List<ReplicatedGuard.Hold> group = holdGroup(entity, reason); // first: it may throw
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
            releaseGroup(group);
          }

          @Override
          public void unknown() {
            synchronized (BulkWrites.this) {
              untracked.add(entity);
              if (!group.isEmpty()) {
                untrackedGroupHolds.merge(entity, group, BulkWrites::concat);
              }
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

  /**
   * The application says every change to {@code entity} is committed: lifts untracked holds, here
   * and on the other application instances.
   */
  void release(EntityGuards entity) {
    List<ReplicatedGuard.Hold> group;
    synchronized (this) {
      untracked.remove(entity);
      group = untrackedGroupHolds.remove(entity);
    }
    if (group != null) {
      releaseGroup(group);
    }
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
