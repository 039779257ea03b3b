package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.KeySource;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.AfterCompletionCallback;
import org.jspecify.annotations.Nullable;

/**
 * The guard of one root entity for one tenant, and the bookkeeping that keeps it exact across
 * transactions.
 *
 * <pre>
 * Tracked set: ids whose insert was flushed and not rolled back, minus ids whose delete was
 * committed. Events and when they reach the guard:
 *
 *   insert flushed (POST_INSERT, row not yet visible to others)
 *        keyEntered now; on rollback keyLeft (registered only because the add happened)
 *   delete flushed (POST_DELETE, row still visible to others)
 *        nothing now; on commit keyLeft
 *   delete then insert of the same id in one transaction
 *        nothing at all: the id exists before and after, whatever the outcome, and the old
 *        fingerprint serves the new row (the delete's keyLeft is cancelled)
 *
 * Every such operation is "pending" from its flush until its completion callback has run. The
 * pending map serves two purposes:
 *
 * 1. Per-key order. CuckooGuard requires enter and leave of one key to reach it in the order they
 *    happen. A delete committed by transaction A lets transaction B insert the same id at once,
 *    but A's keyLeft runs in A's completion callback, which may come after B's keyEntered. So an
 *    insert first waits (briefly: the other transaction has already completed in the database,
 *    or B's INSERT could not have succeeded) until no other thread has a pending operation on the
 *    id. Own pending operations cannot be waited for: they are the same transaction.
 *
 * 2. The KeySource contract. A rebuild emits, in this order: a snapshot of every pending id (in-
 *    flight inserts are tracked but invisible to the scan), the `select id` scan (skipping ids
 *    already emitted), and finally every id with a pending delete that the scan did not see while
 *    it was pending (its keyLeft may arrive only after the scan returns, so the rebuilt filter
 *    must hold a copy for it to remove).
 * </pre>
 *
 * <p>Thread safety: pending operations change under this object's monitor; the scan reads the
 * map without it. Completion callbacks may run on any thread.
 */
final class TenantGuard implements KeySource<Object> {

  private static final Logger LOGGER = System.getLogger("io.github.cuckooguard.hibernate");
  private static final long ORDER_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long PROGRESS_LOG_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final EntityGuards entity;
  private final @Nullable Object tenantId;
  private final CuckooGuard<Object> guard;
  private final Map<Object, List<PendingOp>> pending = new ConcurrentHashMap<>();

  final LongAdder finds = new LongAdder();
  final LongAdder shortCircuits = new LongAdder();
  final LongAdder falsePositives = new LongAdder();

  /** One flushed, not yet completed insert or delete of an id. Fields guarded by the monitor. */
  private static final class PendingOp {
    final Thread owner = Thread.currentThread();
    final boolean insert;
    /** Insert: keyEntered was called. Delete: keyLeft is still due on commit. */
    boolean applies;

    PendingOp(boolean insert, boolean applies) {
      this.insert = insert;
      this.applies = applies;
    }
  }

  TenantGuard(EntityGuards entity, @Nullable Object tenantId, CuckooGuard.Builder<Object> builder) {
    this.entity = entity;
    this.tenantId = tenantId;
    this.guard = builder.keySource(this).build();
  }

  EntityGuards entity() {
    return entity;
  }

  CuckooGuard<Object> guard() {
    return guard;
  }

  @Nullable Object tenantId() {
    return tenantId;
  }

  /** An INSERT of {@code key} was executed inside the session's current transaction. */
  void insertFlushed(Object key, SharedSessionContractImplementor session) {
    PendingOp op;
    synchronized (this) {
      awaitOtherOwners(key);
      PendingOp ownDelete = ownPendingDelete(key);
      if (ownDelete != null) {
        ownDelete.applies = false;
        op = new PendingOp(true, false);
        addPending(key, op);
      } else {
        op = new PendingOp(true, true);
        addPending(key, op);
        guard.keyEntered(key);
      }
    }
    onCompletion(session, key, op);
  }

  /** A DELETE of {@code key} was executed inside the session's current transaction. */
  void deleteFlushed(Object key, SharedSessionContractImplementor session) {
    PendingOp op = new PendingOp(false, true);
    synchronized (this) {
      addPending(key, op);
    }
    onCompletion(session, key, op);
  }

  private void onCompletion(SharedSessionContractImplementor session, Object key, PendingOp op) {
    AfterCompletionCallback callback = (success, s) -> completed(key, op, success);
    session.getTransactionCompletionCallbacks().registerCallback(callback);
  }

  private synchronized void completed(Object key, PendingOp op, boolean success) {
    try {
      if (op.applies && (op.insert ? !success : success)) {
        guard.keyLeft(key);
      }
    } finally {
      List<PendingOp> ops = pending.get(key);
      if (ops != null) {
        ops.remove(op);
        if (ops.isEmpty()) {
          pending.remove(key);
        }
      }
      notifyAll();
    }
  }

  private void addPending(Object key, PendingOp op) {
    pending.computeIfAbsent(key, k -> new ArrayList<>(1)).add(op);
  }

  private @Nullable PendingOp ownPendingDelete(Object key) {
    List<PendingOp> ops = pending.get(key);
    if (ops != null) {
      for (PendingOp op : ops) {
        if (!op.insert && op.applies && op.owner == Thread.currentThread()) {
          return op;
        }
      }
    }
    return null;
  }

  private void awaitOtherOwners(Object key) {
    long deadline = System.nanoTime() + ORDER_WAIT_NANOS;
    boolean interrupted = false;
    try {
      while (hasOtherOwner(key)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          LOGGER.log(Level.WARNING, () -> "Cuckoo guard '" + guard.name() + "': the completion of"
              + " another transaction on the same id did not arrive within "
              + TimeUnit.NANOSECONDS.toSeconds(ORDER_WAIT_NANOS) + " s; continuing in"
              + " pass-through mode until a rebuild");
          guard.markStale("out-of-order completion of concurrent transactions on one id");
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private boolean hasOtherOwner(Object key) {
    List<PendingOp> ops = pending.get(key);
    if (ops != null) {
      for (PendingOp op : ops) {
        if (op.owner != Thread.currentThread()) {
          return true;
        }
      }
    }
    return false;
  }

  // ---- KeySource: warm-up and rebuild ----

  @Override
  public void forEachKey(Consumer<? super Object> action) throws Exception {
    if (entity.held()) {
      throw new IllegalStateException("a write to " + entity.entityName() + " that entity events"
          + " do not report exactly (bulk or native statement, upsert, insert outside a"
          + " transaction) has not completed yet; a scan now could miss its rows, so the guard"
          + " stays in pass-through and rebuilds when it completes");
    }
    Set<Object> emitted;
    synchronized (this) {
      emitted = new HashSet<>(pending.keySet());
    }
    emitted.forEach(action);
    Set<Object> seenWhilePendingDelete = new HashSet<>();
    long start = System.nanoTime();
    long[] count = {0};
    long[] lastLog = {start};
    LOGGER.log(Level.INFO, () -> "Cuckoo guard '" + guard.name() + "': scanning ids");
    entity.scanKeys(tenantId, key -> {
      if (emitted.contains(key)) {
        return;
      }
      if (pending.containsKey(key)) {
        seenWhilePendingDelete.add(key);
      }
      action.accept(key);
      long n = ++count[0];
      if ((n & 4095) == 0) {
        long now = System.nanoTime();
        if (now - lastLog[0] >= PROGRESS_LOG_NANOS) {
          lastLog[0] = now;
          logProgress("scanned", n, now - start);
        }
      }
    });
    List<Object> dueDeletes = new ArrayList<>();
    synchronized (this) {
      pending.forEach((key, ops) -> {
        for (PendingOp op : ops) {
          if (!op.insert && op.applies) {
            dueDeletes.add(key);
            return;
          }
        }
      });
    }
    for (Object key : dueDeletes) {
      if (!emitted.contains(key) && !seenWhilePendingDelete.contains(key)) {
        action.accept(key);
      }
    }
    logProgress("scan done:", count[0], System.nanoTime() - start);
  }

  private void logProgress(String what, long rows, long nanos) {
    LOGGER.log(Level.INFO, () -> "Cuckoo guard '" + guard.name() + "': " + what + " " + rows
        + " ids in " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms");
  }
}
