package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.KeySource;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.hibernate.HibernateException;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.jspecify.annotations.Nullable;

/**
 * The guard of one root entity for one tenant, its find counters, and its {@link KeySource}: a
 * plain {@code select id} scan of the rows a new transaction of the tenant sees.
 *
 * <p>The scan is all the key source has to emit: inserts and deletes reach the guard through its
 * write handles ({@link MembershipListener}), and the guard itself keeps every enter and leave that
 * is in flight (flushed, not yet committed or rolled back) in a rebuilt filter. The one thing the
 * scan cannot see is a write that no entity event reports (bulk or native SQL, an upsert, an insert
 * of a generated id outside a transaction): while such a write is pending the entity is held
 * ({@link BulkWrites}) and the scan fails on purpose, which keeps the guard in pass-through until a
 * rebuild that starts after the write became visible.
 *
 * <p>Thread safety: thread-safe; the counters are adders, the scan opens its own session.
 */
final class TenantGuard implements KeySource<Object> {

  private final EntityGuards entity;
  private final @Nullable Object tenantId;
  private final CuckooGuard<Object> guard;

  /** The guard's group on the other application instances, with cluster settings; else null. */
  private final @Nullable ReplicatedGuard<Object> replicated;

  final LongAdder finds = new LongAdder();
  final LongAdder shortCircuits = new LongAdder();
  final LongAdder falsePositives = new LongAdder();

  TenantGuard(EntityGuards entity, @Nullable Object tenantId, CuckooGuard.Builder<Object> builder) {
    this.entity = entity;
    this.tenantId = tenantId;
    this.guard = builder.keySource(this).build();
    Replication replication = entity.registry().replication();
    this.replicated = replication == null ? null : replication.join(guard);
  }

  /**
   * Whether a row of {@code key} might exist: the local guard's answer, or with a cluster the
   * replicated guard's (false only while this member holds a fresh lease and a complete filter).
   */
  boolean mightContain(Object key) {
    return replicated != null ? replicated.mightContain(key) : guard.mightContain(key);
  }

  /** How a begun write ends: after commit, or after rollback. */
  record Ends(Runnable committed, Runnable rolledBack) {}

  /**
   * Begins the enter of {@code key} here and, with a cluster, on every other member: returns once
   * every member that can still answer "no such row" holds the key in flight (the group's rule 1),
   * so a row inserted after this is never reported absent by any member; see
   * io.github.cuckooguard.spi.ReplicatedGuard.
   */
  Ends beginEnter(Object key) {
    if (replicated == null) {
      PendingEnter<Object> enter = guard.beginEnter(key);
      return new Ends(enter::visible, enter::abort);
    }
    ReplicatedGuard.Enter<Object> enter;
    try {
      enter = replicated.beginEnter(key);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HibernateException(
          "interrupted while the cluster acknowledged the insert of "
              + entity.entityName()
              + " #"
              + key
              + "; the insert must not commit",
          e);
    }
    return new Ends(enter::visible, enter::abort);
  }

  /**
   * Begins the enter of {@code key} for an insert in {@code session}'s transaction: as {@link
   * #beginEnter}, except that with a cluster the other members receive it together with the
   * transaction's other inserts, at the end of the flush or before the commit, which is before the
   * row can be visible to them ({@link ClusterEnters}).
   */
  Ends beginEnterInTransaction(Object key, SharedSessionContractImplementor session) {
    if (replicated == null) {
      return beginEnter(key);
    }
    return entity.registry().clusterEnters().begin(session, replicated, key);
  }

  /**
   * Announces the leave of {@code key} here and, with a cluster, on every other member (same wait
   * as {@link #beginEnter}), before the delete can commit; {@code gone} follows after the commit.
   */
  Ends beginLeave(Object key) {
    if (replicated == null) {
      PendingLeave<Object> leave = guard.beginLeave(key);
      return new Ends(leave::gone, leave::cancel);
    }
    ReplicatedGuard.Leave<Object> leave;
    try {
      leave = replicated.beginLeave(key);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HibernateException(
          "interrupted while the cluster acknowledged the delete of "
              + entity.entityName()
              + " #"
              + key
              + "; the delete must not commit",
          e);
    }
    return new Ends(leave::gone, leave::cancel);
  }

  EntityGuards entity() {
    return entity;
  }

  /** The guard's group on the other application instances, or null without a cluster. */
  @Nullable ReplicatedGuard<Object> replicated() {
    return replicated;
  }

  CuckooGuard<Object> guard() {
    return guard;
  }

  @Override
  public void forEachKey(Consumer<? super Object> action) throws Exception {
    if (entity.held()) {
      throw new IllegalStateException(
          "a write to "
              + entity.entityName()
              + " that entity events"
              + " do not report exactly (bulk or native statement, upsert, insert of a generated id"
              + " outside a transaction) has not completed yet; a scan now could miss its rows, so the"
              + " guard stays in pass-through and rebuilds when it completes");
    }
    entity.scanKeys(tenantId, action::accept);
  }
}
