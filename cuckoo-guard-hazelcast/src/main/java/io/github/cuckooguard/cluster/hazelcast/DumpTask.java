package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import java.io.Serial;
import java.io.Serializable;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * One request of the peer-dump join, run by Hazelcast's executor service on the serving member
 * ({@link DumpServer}); its result is a {@link DumpReply}.
 */
final class DumpTask implements Callable<DumpReply>, Serializable, HazelcastInstanceAware {

  @Serial private static final long serialVersionUID = 1L;

  enum Kind {
    /** Take a snapshot for the asking member; reply with its session and header chunk. */
    OPEN,
    /** A piece of the chunk at {@link #cursor}, from byte {@link #offset}. */
    PIECE,
    /** The joiner is done with the session (loaded, or gave up). */
    CLOSE
  }

  final String group;

  /**
   * The asking (joining) member: its sessions are dropped when Hazelcast removes it (a joiner
   * killed mid-stream sends no CLOSE).
   */
  final UUID from;

  final Kind kind;
  final long session;
  final long cursor;
  final int offset;
  final int maxBytes;

  private transient @Nullable HazelcastInstance instance;

  DumpTask(
      String group, UUID from, Kind kind, long session, long cursor, int offset, int maxBytes) {
    this.group = group;
    this.from = from;
    this.kind = kind;
    this.session = session;
    this.cursor = cursor;
    this.offset = offset;
    this.maxBytes = maxBytes;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance instance) {
    this.instance = instance;
  }

  @Override
  public DumpReply call() {
    HazelcastGuardGroup<?> target =
        instance == null ? null : HazelcastGuardGroup.registered(instance, group);
    if (target == null) {
      return DumpReply.refused("no guard group '" + group + "' on this member");
    }
    return target.dumps().handle(this);
  }

  @Override
  public String toString() {
    return kind
        + "["
        + group
        + " from "
        + from
        + ", session "
        + session
        + ", cursor "
        + cursor
        + "+"
        + offset
        + "]";
  }
}
