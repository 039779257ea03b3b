package io.github.cuckooguard.spi;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The receiving side of a replicated guard: applies other members' writes to this member's {@link
 * CuckooGuard} with the core's own write protocol. An engine calls it when a message arrives and
 * acknowledges the message only after the call returned.
 *
 * <p>What a remote write means here:
 *
 * <ul>
 *   <li>A remote enter <b>begins</b> with {@link CuckooGuard#beginEnter} on this guard: the
 *       fingerprint is stored and the key is in flight here until the writer's end arrives, so a
 *       rebuild of this guard keeps it although this member's {@link
 *       io.github.cuckooguard.KeySource} may not show the key yet. Since the writer makes the key
 *       visible only after this returned (engine rule 1), this guard holds the key from before it
 *       is visible until its leave.
 *   <li>A remote enter <b>ends</b> with {@code visible()} or {@code abort()}; an end for an unknown
 *       operation is ignored (its begin was never applied here, so there is nothing to remove;
 *       removing anyway could take a colliding key's fingerprint).
 *   <li>A remote leave is announced with {@link CuckooGuard#beginLeave} and ends with {@code
 *       gone()} only if its announcement was applied here; a {@code gone} without the announcement
 *       is dropped (a false positive until the next rebuild), because applied late it could remove
 *       a fingerprint from a filter rebuilt after the key was already gone.
 *   <li>When the writer is lost ({@link #originLost}) or this member gives up its remote state
 *       ({@link #releaseAll}, e.g. when its lease lapsed), every open remote enter ends as {@code
 *       visible()} and every open leave as {@code cancel()}: the outcome is unknown, and keeping a
 *       fingerprint is never wrong.
 * </ul>
 *
 * Duplicated begins (a redelivery) are applied once. Thread-safe.
 *
 * @param <K> the key type
 */
public final class RemoteWrites<K> {

  private record Op(String origin, long id) {}

  private final CuckooGuard<K> guard;
  private final Map<Op, PendingEnter<K>> enters = new ConcurrentHashMap<>();
  private final Map<Op, PendingLeave<K>> leaves = new ConcurrentHashMap<>();

  /** Applies remote writes to {@code guard}. */
  public RemoteWrites(CuckooGuard<K> guard) {
    this.guard = Objects.requireNonNull(guard, "guard");
  }

  /** The guard remote writes are applied to. */
  public CuckooGuard<K> guard() {
    return guard;
  }

  /** Begins the enter {@code op} of member {@code origin} on this guard (returns once applied). */
  public void enterBegun(String origin, long op, K key) {
    Objects.requireNonNull(key, "key");
    enters.computeIfAbsent(new Op(origin, op), o -> guard.beginEnter(key));
  }

  /**
   * Ends the enter {@code op} of {@code origin}: visible, or aborted (removes the fingerprint,
   * paired).
   */
  public void enterEnded(String origin, long op, boolean visible) {
    PendingEnter<K> enter = enters.remove(new Op(origin, op));
    if (enter == null) {
      return;
    }
    if (visible) {
      enter.visible();
    } else {
      enter.abort();
    }
  }

  /** Announces the leave {@code op} of {@code origin} on this guard (returns once applied). */
  public void leaveBegun(String origin, long op, K key) {
    Objects.requireNonNull(key, "key");
    leaves.computeIfAbsent(new Op(origin, op), o -> guard.beginLeave(key));
  }

  /**
   * Ends the leave {@code op} of {@code origin}; dropped unless its announcement was applied here.
   */
  public void leaveEnded(String origin, long op, boolean gone) {
    PendingLeave<K> leave = leaves.remove(new Op(origin, op));
    if (leave == null) {
      return;
    }
    if (gone) {
      leave.gone();
    } else {
      leave.cancel();
    }
  }

  /**
   * Member {@code origin} left the group: its open enters end visible, its open leaves cancelled.
   */
  public void originLost(String origin) {
    endConservatively(op -> op.origin().equals(origin));
  }

  /** Ends every open remote write conservatively (enters visible, leaves cancelled). */
  public void releaseAll() {
    endConservatively(op -> true);
  }

  private void endConservatively(Predicate<Op> which) {
    for (Op op : List.copyOf(enters.keySet())) {
      PendingEnter<K> enter = which.test(op) ? enters.remove(op) : null;
      if (enter != null) {
        enter.visible();
      }
    }
    for (Op op : List.copyOf(leaves.keySet())) {
      PendingLeave<K> leave = which.test(op) ? leaves.remove(op) : null;
      if (leave != null) {
        leave.cancel();
      }
    }
  }

  /** Remote enters and leaves begun here and not ended. */
  public int open() {
    return enters.size() + leaves.size();
  }
}
