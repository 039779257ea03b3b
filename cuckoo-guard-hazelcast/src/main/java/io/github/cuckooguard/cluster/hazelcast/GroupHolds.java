package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writer's side of group holds: the id a hold travels under, and the release, retried until
 * every member applied it or left the cluster.
 *
 * <pre>
 * Ids. A hold travels under an id unique in this JVM (not the guard's operation number, which
 * restarts when a group is closed and joined again on the same member), so a late release of an
 * old hold can never end a newer hold of the same member on a receiver.
 *
 * Release. Sent to every other member of the cluster at the time of the release, at any epoch
 * (RELEASE_HOLD is applied whatever the receiver's epoch and window: it marks the guard stale
 * before the hold ends, which is safe at any time after the write committed or rolled back).
 * A member that does not answer is asked again (backing off up to the lease) as long as it is in
 * the cluster: a lost release would hold that member in pass-through until this member leaves.
 * A member that left needs none: on its side this member left too, and RemoteWrites.originLost
 * ends the hold after marking the guard stale. A member that never applied the hold remembers the
 * release and drops the hold if it arrives late.
 * </pre>
 *
 * <p>Thread-safe.
 */
final class GroupHolds {

  /** Unique per JVM, far from the epochs' range (a mix-up would be harmless, but confusing). */
  private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() << 20);

  private static final long FIRST_RETRY_MILLIS = 10;

  private final HazelcastInstance hazelcast;
  private final IExecutorService executor;
  private final String group;
  private final UUID self;
  private final long maxRetryMillis;
  private final ConcurrentHashMap<Long, Long> wireIds = new ConcurrentHashMap<>();
  private final AtomicLong releasesSent = new AtomicLong();

  GroupHolds(
      HazelcastInstance hazelcast,
      IExecutorService executor,
      String group,
      UUID self,
      long leaseNanos) {
    this.hazelcast = hazelcast;
    this.executor = executor;
    this.group = group;
    this.self = self;
    this.maxRetryMillis = Math.max(FIRST_RETRY_MILLIS, TimeUnit.NANOSECONDS.toMillis(leaseNanos));
  }

  /** The id hold {@code op} travels under (new for a new op). */
  long wireId(long op) {
    return wireIds.computeIfAbsent(op, o -> IDS.incrementAndGet());
  }

  /** Holds begun and not released yet. */
  int open() {
    return wireIds.size();
  }

  /** Release messages sent (one per member and attempt). */
  long releasesSent() {
    return releasesSent.get();
  }

  /**
   * Releases hold {@code op} on every other member; completes when each applied it or left the
   * cluster (or this member shut down). A release of an op never held completes at once.
   */
  CompletableFuture<Void> release(long op) {
    Long wire = wireIds.remove(op);
    if (wire == null) {
      return CompletableFuture.completedFuture(null);
    }
    GroupTask task =
        new GroupTask(
            group, GroupTask.Kind.RELEASE_HOLD, self, HazelcastGuardGroup.ANY_EPOCH, wire, null);
    List<CompletableFuture<Void>> each = new ArrayList<>();
    try {
      for (Member m : hazelcast.getCluster().getMembers()) {
        if (!m.getUuid().equals(self)) {
          CompletableFuture<Void> done = new CompletableFuture<>();
          send(task, m, done, 0);
          each.add(done);
        }
      }
    } catch (RuntimeException shutDown) {
      // this member is gone: on every other member its holds end through originLost
    }
    return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0]));
  }

  private void send(GroupTask task, Member member, CompletableFuture<Void> done, int attempt) {
    try {
      releasesSent.incrementAndGet();
      executor.submitToMember(
          task,
          member,
          new ExecutionCallback<Integer>() {
            @Override
            public void onResponse(Integer response) {
              done.complete(null); // ACK, or NO_GUARD: no guard there holds anything
            }

            @Override
            public void onFailure(Throwable t) {
              retry(task, member, done, attempt);
            }
          });
    } catch (RuntimeException e) {
      retry(task, member, done, attempt);
    }
  }

  private void retry(GroupTask task, Member member, CompletableFuture<Void> done, int attempt) {
    boolean stillThere;
    try {
      stillThere =
          hazelcast.getLifecycleService().isRunning()
              && hazelcast.getCluster().getMembers().contains(member);
    } catch (RuntimeException e) {
      stillThere = false;
    }
    if (!stillThere) {
      done.complete(null); // see the class comment: its side ends the hold through originLost
      return;
    }
    long delay = Math.min(maxRetryMillis, FIRST_RETRY_MILLIS << Math.min(attempt, 16));
    CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS)
        .execute(() -> send(task, member, done, attempt + 1));
  }
}
