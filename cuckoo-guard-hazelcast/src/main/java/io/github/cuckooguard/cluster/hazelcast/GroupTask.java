package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * One message of the group protocol, run by Hazelcast's executor service on the target member; its
 * result is the acknowledgement. The reply is computed <em>after</em> the message was applied on
 * the target (the call returns only then), which is what makes a positive reply an acknowledgement
 * of application, not of receipt.
 */
final class GroupTask implements Callable<Integer>, Serializable, HazelcastInstanceAware {

  @Serial private static final long serialVersionUID = 1L;

  /** The target applied the message (or renewed the lease). */
  static final int ACK = 0;

  /** The target refused: stale epoch, acceptance window over, or a revoked lease. */
  static final int NACK = 1;

  /** The target has no guard of this name: it cannot answer "definitely absent" for it. */
  static final int NO_GUARD = 2;

  /**
   * The target removed the sender from its member list: it renews its own lease without the sender
   * and grants it nothing any more (a member UUID, once removed, never comes back).
   */
  static final int REMOVED = 3;

  enum Kind {
    BEGIN_ENTER,
    BEGIN_ENTERS,
    END_ENTER_VISIBLE,
    END_ENTER_ABORT,
    BEGIN_LEAVE,
    END_LEAVE_GONE,
    END_LEAVE_CANCEL,
    /** Several ends: {@link #ops}[i] ends as {@link #ends}[i] (one of the four END_* kinds). */
    END_BATCH,
    RENEW,
    JOIN,
    /**
     * A write of unknown keys is about to run on the origin: answer "might contain" until released.
     */
    HOLD_STALE,
    /** The write of hold {@link #op} completed: mark the guard stale, then end the hold. */
    RELEASE_HOLD,
    /**
     * The origin asks whether it is still a member in the target's view (ACK), or was removed from
     * it (REMOVED), before it goes on past a member that did not acknowledge a write, or commits a
     * held write. Changes nothing on the target.
     */
    FENCE
  }

  final String group;
  final Kind kind;
  final UUID origin;

  /** For writes: the target's epoch as the origin knows it; for RENEW/JOIN: the origin's epoch. */
  final long epoch;

  final long op;

  /**
   * For BEGIN_ENTER/BEGIN_LEAVE the key; for BEGIN_ENTERS the list of keys, {@link #ops}[i]
   * entering the i-th.
   */
  final @Nullable Object key;

  /** For BEGIN_ENTERS and END_BATCH: the operations of the batch; otherwise null. */
  final long @Nullable [] ops;

  /** For END_BATCH: how each operation of {@link #ops} ends; otherwise null. */
  final Kind @Nullable [] ends;

  private transient @Nullable HazelcastInstance instance;

  GroupTask(String group, Kind kind, UUID origin, long epoch, long op, @Nullable Object key) {
    this.group = group;
    this.kind = kind;
    this.origin = origin;
    this.epoch = epoch;
    this.op = op;
    this.key = key;
    this.ops = null;
    this.ends = null;
  }

  /** A batch of enter begins: {@code ops[i]} enters {@code keys.get(i)}. */
  GroupTask(String group, UUID origin, long epoch, long[] ops, List<?> keys) {
    this.group = group;
    this.kind = Kind.BEGIN_ENTERS;
    this.origin = origin;
    this.epoch = epoch;
    this.op = 0;
    this.key = new ArrayList<>(keys);
    this.ops = ops.clone();
    this.ends = null;
  }

  /** A batch of ends: {@code ops[i]} ends as {@code ends[i]}. */
  GroupTask(String group, UUID origin, long epoch, long[] ops, Kind[] ends) {
    if (ops.length != ends.length) {
      throw new IllegalArgumentException(ops.length + " ops for " + ends.length + " ends");
    }
    this.group = group;
    this.kind = Kind.END_BATCH;
    this.origin = origin;
    this.epoch = epoch;
    this.op = 0;
    this.key = null;
    this.ops = ops.clone();
    this.ends = ends.clone();
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance instance) {
    this.instance = instance;
  }

  @Override
  public Integer call() throws Exception {
    HazelcastGuardGroup<?> target =
        instance == null ? null : HazelcastGuardGroup.registered(instance, group);
    if (target == null) {
      return NO_GUARD;
    }
    return target.handle(this);
  }

  @Override
  public String toString() {
    return kind + "[" + group + ", from " + origin + ", epoch " + epoch + ", op " + op + "]";
  }
}
