package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.hibernate.HibernateException;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.FlushEvent;
import org.hibernate.event.spi.FlushEventListener;
import org.hibernate.resource.transaction.spi.TransactionCoordinator;
import org.hibernate.resource.transaction.spi.TransactionObserver;
import org.jspecify.annotations.Nullable;

/**
 * The inserts of a transaction, replicated to the other application instances together: each
 * insert's enter begins on the local guard at the insert (before its statement, as without a
 * cluster), and the group receives the enters not sent yet in one round trip per guard, at the end
 * of each flush and, for whatever is left then, before the commit.
 *
 * <pre>
 * Why no member answers "no such row" for a row a batched insert made visible:
 *
 * - The row becomes visible to other transactions only at the commit. Every enter of the
 *   transaction is replicated before it: at the end of the flush that ran its statement (a FLUSH
 *   listener after Hibernate's own), or, for an insert no flush ran (a StatelessSession insert, an
 *   identity insert at persist, a flush mode that skips the commit's flush, an insert made during
 *   completion), in the transaction's beforeCompletion: both resource-local and JTA coordinators
 *   notify their observers after the session's own before-completion flush and before the physical
 *   commit, and mark the transaction rollback-only if an observer throws.
 * - Replicating a batch returns only when every other member that can still answer absent applied
 *   all of its begins (GroupEngine.entersBegun, rule 1), so from the commit on every such member
 *   holds each key in flight until the visible() that follows the commit, then tracked.
 * - Until the replication the key is in flight on this member only. No other member can miss it:
 *   the row is not visible yet, and a member that joins meanwhile either receives the batch (its
 *   JOIN was granted before the batch was sent, so the batch goes to its new epoch) or is waited
 *   out. The grantor's JOIN drain waits only for enters already sent, so an open transaction does
 *   not hold up joins.
 * - If the replication fails (the group could not be made safe in time), its local enters are
 *   aborted, the transaction is marked rollback-only and the flush or commit throws: the rows never
 *   become visible. A commit that happened anyway (only an application committing a transaction
 *   Hibernate marked rollback-only on a connection of its own) re-enters the key late and logs an
 *   error: the one place where a window remains, and it lies outside Hibernate's protocol.
 * - An insert added after the transaction's beforeCompletion ran is replicated on its own at once.
 * </pre>
 *
 * <p>Thread safety: thread-safe. Inserts and flushes run on the session's thread; completion may
 * run on another (JTA). The network round trip runs without holding a lock.
 */
final class ClusterEnters implements FlushEventListener {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.hibernate");

  private final Map<TransactionCoordinator, Batch> open =
      Collections.synchronizedMap(new WeakHashMap<>());

  /**
   * Begins the enter of {@code key} on {@code group}'s local guard in the session's transaction and
   * returns its ends; the group receives it at the end of the flush or before the commit.
   */
  TenantGuard.Ends begin(
      SharedSessionContractImplementor session, ReplicatedGuard<Object> group, Object key) {
    Slot slot = new Slot(group, group.local().beginEnter(key));
    TransactionCoordinator coordinator = session.getTransactionCoordinator();
    while (true) {
      Batch batch =
          open.computeIfAbsent(
              coordinator,
              c -> {
                Batch created = new Batch(c);
                c.addObserver(created);
                return created;
              });
      Added added = batch.add(slot);
      if (added == Added.COMPLETED) {
        open.remove(coordinator, batch); // it completed: start the next one
        continue;
      }
      if (added == Added.SEALED) { // beforeCompletion already ran: send this one by itself, now
        replicate(session, List.of(slot));
      }
      return new TenantGuard.Ends(slot::committed, slot::rolledBack);
    }
  }

  /** After Hibernate's own flush listener: sends the enters its statements began. */
  @Override
  public void onFlush(FlushEvent event) throws HibernateException {
    SharedSessionContractImplementor session = event.getSession();
    Batch batch = open.get(session.getTransactionCoordinator());
    if (batch != null) {
      replicate(session, batch.drain(false));
    }
  }

  /**
   * Sends {@code slots} to their groups, one round trip per group.
   *
   * @throws HibernateException if a group could not be made safe in time (the enters are aborted
   *     and the transaction is marked rollback-only) or the thread was interrupted
   */
  private static void replicate(
      @Nullable SharedSessionContractImplementor session, List<Slot> slots) {
    if (slots.isEmpty()) {
      return;
    }
    Map<ReplicatedGuard<Object>, List<Slot>> byGroup = new LinkedHashMap<>();
    for (Slot slot : slots) {
      byGroup.computeIfAbsent(slot.group, g -> new ArrayList<>()).add(slot);
    }
    RuntimeException failure = null;
    for (Map.Entry<ReplicatedGuard<Object>, List<Slot>> e : byGroup.entrySet()) {
      List<Slot> group = e.getValue();
      List<PendingEnter<Object>> begun = new ArrayList<>(group.size());
      for (Slot slot : group) {
        begun.add(slot.pending);
      }
      try {
        List<ReplicatedGuard.Enter<Object>> enters = e.getKey().replicate(begun);
        for (int i = 0; i < group.size(); i++) {
          group.get(i).replicated(enters.get(i));
        }
      } catch (InterruptedException | RuntimeException ex) {
        if (ex instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        for (Slot slot : group) {
          slot.failed(); // replicate() aborted them here and on every member that applied them
        }
        HibernateException h =
            new HibernateException(
                "the cluster did not acknowledge the inserts of "
                    + group.size()
                    + " row(s) (e.g. id "
                    + group.get(0).pending.key()
                    + "); they must not commit",
                ex);
        if (failure == null) {
          failure = h;
        } else {
          failure.addSuppressed(h);
        }
      }
    }
    if (failure != null) {
      if (session != null) {
        markRollbackOnly(session);
      }
      throw failure;
    }
  }

  private static void markRollbackOnly(SharedSessionContractImplementor session) {
    try {
      session.getTransactionCoordinator().getTransactionDriverControl().markRollbackOnly();
    } catch (RuntimeException e) {
      LOGGER.log(Level.WARNING, "could not mark the transaction rollback-only", e);
    }
  }

  /** What {@link Batch#add} did. */
  private enum Added {
    /** Queued: sent at the end of the flush or before the commit. */
    ADDED,
    /** Not queued, beforeCompletion already ran: the caller sends it by itself. */
    SEALED,
    /** Not queued, the transaction completed: the caller takes the next batch. */
    COMPLETED
  }

  /** One insert's enter: local until replicated, then the replicated handle. */
  private static final class Slot {
    final ReplicatedGuard<Object> group;
    final PendingEnter<Object> pending;
    private ReplicatedGuard.@Nullable Enter<Object> enter;
    private boolean failed;

    Slot(ReplicatedGuard<Object> group, PendingEnter<Object> pending) {
      this.group = group;
      this.pending = pending;
    }

    synchronized void replicated(ReplicatedGuard.Enter<Object> enter) {
      this.enter = enter;
    }

    synchronized void failed() {
      this.failed = true;
    }

    void committed() {
      ReplicatedGuard.Enter<Object> e;
      boolean lost;
      synchronized (this) {
        e = enter;
        lost = failed;
      }
      if (e != null) {
        e.visible();
        return;
      }
      // Not reachable through Hibernate's coordinators (see the class comment): the row is
      // visible and some member may lack its key. Enter it everywhere, late, and say so.
      LOGGER.log(
          Level.ERROR,
          "Cuckoo guard: an insert of id "
              + pending.key()
              + " committed "
              + (lost
                  ? "after the cluster failed to acknowledge it (the transaction was marked"
                      + " rollback-only)"
                  : "without its enter being replicated first")
              + "; entering it on every instance late");
      try {
        if (lost) { // the local enter was aborted with the failed batch: a new one
          group.beginEnter(pending.key()).visible();
        } else {
          group.replicate(List.of(pending)).get(0).visible();
        }
      } catch (InterruptedException | RuntimeException ex) {
        if (ex instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        // both calls abort the local enter when they fail: pass through until a rebuild has
        // scanned the committed row
        group.local().markStale("an insert committed before the cluster acknowledged it");
      }
    }

    void rolledBack() {
      ReplicatedGuard.Enter<Object> e;
      boolean lost;
      synchronized (this) {
        e = enter;
        lost = failed;
      }
      if (e != null) {
        e.abort(); // here and, paired, on every member that applied the begin
      } else if (!lost) {
        pending.abort(); // never sent: only the local copy exists
      }
    }
  }

  /** The unsent enters of one transaction. */
  private final class Batch implements TransactionObserver {
    /** Weak: the coordinator holds this observer, a strong reference would pin the map key. */
    private final WeakReference<TransactionCoordinator> coordinator;

    private final List<Slot> unsent = new ArrayList<>();
    private boolean sealed;
    private boolean completed;

    Batch(TransactionCoordinator coordinator) {
      this.coordinator = new WeakReference<>(coordinator);
    }

    synchronized Added add(Slot slot) {
      if (completed) {
        return Added.COMPLETED;
      }
      if (sealed) {
        return Added.SEALED;
      }
      unsent.add(slot);
      return Added.ADDED;
    }

    synchronized List<Slot> drain(boolean seal) {
      sealed |= seal;
      List<Slot> due = List.copyOf(unsent);
      unsent.clear();
      return due;
    }

    @Override
    public void afterBegin() {}

    @Override
    public void beforeCompletion() {
      // Thrown on: the coordinator marks the transaction rollback-only and fails the commit.
      replicate(null, drain(true));
    }

    @Override
    public void afterCompletion(boolean successful, boolean delayed) {
      synchronized (this) {
        completed = true;
      }
      // Unsent enters left here (their transaction completed without beforeCompletion) end
      // through their slots: TransactionEnds runs them.
      TransactionCoordinator owner = coordinator.get();
      if (owner != null) {
        open.remove(owner, this);
        owner.removeObserver(this);
      }
    }
  }
}
