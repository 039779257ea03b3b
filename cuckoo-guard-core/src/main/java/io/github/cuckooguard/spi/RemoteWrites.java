package io.github.cuckooguard.spi;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 *   <li>A remote enter is never ended before its writer's end arrives: not when this member's lease
 *       lapses or it leaves the group ({@link #lapsed}), not when the writer is lost ({@link
 *       #originLost}). Until its end, the key stays in flight here, so every rebuild of this guard
 *       keeps it, whenever the writer makes it visible. Ending it as {@code visible()} early would
 *       be wrong: a rebuild whose scan ran before the writer made the key visible would drop it (a
 *       writer paused between its acknowledged begin and its commit commits after it resumes, by
 *       which time this member may have lapsed, rejoined without it and rebuilt). An end arriving
 *       after a lapse or after its writer was lost is still applied (the begin was applied here, so
 *       ending it is paired); a lost writer's enter whose end never arrives is never ended (see
 *       {@link #orphaned()} for the bound). Open leaves are cancelled at a lapse or a loss (the
 *       fingerprint stays; a later {@code gone} is dropped): the outcome is unknown, and keeping a
 *       fingerprint is never wrong.
 *   <li>A remote <b>hold</b> (a write of unknown keys on the origin: a bulk or native statement)
 *       makes {@link #holding()} true until its release; the engine then answers "might contain"
 *       for every key. The release marks this guard stale <em>before</em> the hold ends ({@link
 *       #holdEnded}), so at every instant either the hold or the guard's pass-through is on, and
 *       pass-through clears only when a rebuild that started after the release (after the write
 *       committed, since the origin releases after its transaction completed) swapped in: its scan
 *       sees the write's rows. A hold ends only by its release or, after its origin left, by {@link
 *       #lostHoldsEnded} (which marks the guard stale first too); {@link #lapsed} keeps holds,
 *       since a member that lapsed and rejoins must still not answer "absent" before the write
 *       committed. A release that overtakes its hold is remembered, and the late hold is dropped.
 * </ul>
 *
 * Duplicated begins (a redelivery) are applied once, so an origin must never reuse an operation
 * number ({@link ReplicatedGuard} numbers them uniquely per JVM, and an origin names one member).
 * Thread-safe.
 *
 * @param <K> the key type
 */
public final class RemoteWrites<K> {

  private record Op(String origin, long id) {}

  private final CuckooGuard<K> guard;
  private final Map<Op, PendingEnter<K>> enters = new ConcurrentHashMap<>();

  /**
   * Open enters of origins that left: kept in flight until their own end arrives (a writer removed
   * from the cluster may still send it), else for good. The lost writer may still make its key
   * visible (its process runs on without its member and commits), after a rebuild of this guard
   * scanned the source; an enter ended as visible would then be dropped by that rebuild, one kept
   * in flight is carried into it. The price is a false positive per such key, for the life of this
   * guard (see {@link #orphaned()}).
   */
  private final Map<Op, PendingEnter<K>> orphans = new ConcurrentHashMap<>();

  private final Map<Op, PendingLeave<K>> leaves = new ConcurrentHashMap<>();

  /** Open remote holds; changed under this object's monitor. */
  private final Set<Op> holds = new HashSet<>();

  /** Releases that arrived before their hold (bounded: oldest forgotten first). */
  private final Set<Op> releasedEarly =
      Collections.newSetFromMap(
          new LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Op, Boolean> eldest) {
              return size() > MAX_EARLY_RELEASES;
            }
          });

  private static final int MAX_EARLY_RELEASES = 4096;

  /** Origins that left: a hold of theirs that arrives late is dropped (nobody would release it). */
  private final Set<String> lostOrigins = new HashSet<>();

  /** {@code holds.size()}, for lock-free readers ({@link #holding()}). */
  private volatile int holdCount;

  private final OpenEnters<K> openEnters;

  /** Applies remote writes to {@code guard}. */
  public RemoteWrites(CuckooGuard<K> guard) {
    this(guard, OpenEnters.none());
  }

  /**
   * Applies remote writes to {@code guard} and counts the remote enters it applies in {@code
   * openEnters}, shared with this member's {@link ReplicatedGuard}, whose leaves consult it. Remote
   * leaves are ended as their origin says: the origin decided from its own member's open enters.
   */
  public RemoteWrites(CuckooGuard<K> guard, OpenEnters<K> openEnters) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.openEnters = Objects.requireNonNull(openEnters, "openEnters");
  }

  /** The guard remote writes are applied to. */
  public CuckooGuard<K> guard() {
    return guard;
  }

  /** Begins the enter {@code op} of member {@code origin} on this guard (returns once applied). */
  public void enterBegun(String origin, long op, K key) {
    Objects.requireNonNull(key, "key");
    enters.computeIfAbsent(
        new Op(origin, op),
        o -> {
          PendingEnter<K> enter = guard.beginEnter(key);
          openEnters.enterBegun(key); // once per applied begin (inside the computeIfAbsent)
          return enter;
        });
  }

  /**
   * Ends the enter {@code op} of {@code origin}: visible, or aborted (removes the fingerprint,
   * paired). Applied whenever it arrives, also after a lapse here or after the origin was lost: the
   * writer sends visible only after the key is visible at the source (a rebuild that scans from now
   * on sees it) and abort only if it never was.
   */
  public void enterEnded(String origin, long op, boolean visible) {
    Op key = new Op(origin, op);
    PendingEnter<K> enter = enters.remove(key);
    if (enter == null) {
      enter = orphans.remove(key);
    }
    if (enter == null) {
      return;
    }
    if (visible) {
      enter.visible();
    } else {
      enter.abort();
    }
    openEnters.enterEnded(enter.key());
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
   * Opens the hold {@code op} of {@code origin} (returns once applied): from now on {@link
   * #holding()} is true until its release or its origin leaves. A redelivered hold is applied once;
   * a hold whose release already arrived is dropped.
   */
  public synchronized void holdBegun(String origin, long op) {
    Op hold = new Op(origin, op);
    if (!releasedEarly.remove(hold) && !lostOrigins.contains(origin) && holds.add(hold)) {
      holdCount = holds.size();
    }
  }

  /**
   * Releases the hold {@code op} of {@code origin}: marks the guard stale, then ends the hold, so
   * that this member answers "absent" again only after a rebuild that started now (see the class
   * comment). A release of a hold not applied here is remembered, so the hold, if it arrives late,
   * is dropped.
   */
  public void holdEnded(String origin, long op, String reason) {
    Op hold = new Op(origin, op);
    synchronized (this) {
      if (!holds.contains(hold)) {
        releasedEarly.add(hold);
        return;
      }
    }
    guard.markStale(reason); // first: pass-through is on before the hold is off
    synchronized (this) {
      holds.remove(hold);
      holdCount = holds.size();
    }
  }

  /** Whether a remote hold is open here: the member must answer "might contain" for every key. */
  public boolean holding() {
    return holdCount > 0;
  }

  /**
   * Member {@code origin} left the group: its open enters stay in flight until their end arrives
   * (its process may run on, make their keys visible and send the end), else for good; its open
   * leaves are cancelled; its holds stay open (it may still commit a held write, see {@link
   * ReplicatedGuard.Hold#fence()}) until their release or {@link #lostHoldsEnded}, which the engine
   * calls once every fence the origin passed before it left has been outlasted.
   */
  public void originLost(String origin) {
    for (Op op : List.copyOf(enters.keySet())) {
      if (op.origin().equals(origin)) {
        PendingEnter<K> enter = enters.remove(op);
        if (enter != null) {
          orphans.put(op, enter); // stays in flight: see orphans
        }
      }
    }
    cancelLeaves(op -> op.origin().equals(origin));
    synchronized (this) {
      lostOrigins.add(origin);
      releasedEarly.removeIf(op -> op.origin().equals(origin));
    }
  }

  /**
   * Ends the holds of {@code origin}, which left ({@link #originLost}), after the guard was marked
   * stale (a rebuild that starts now sees what its writes committed). Call it only once the origin
   * can no longer commit a held write: no fence it passed before it left is still running.
   */
  public void lostHoldsEnded(String origin) {
    boolean had;
    synchronized (this) {
      had = holds.stream().anyMatch(op -> op.origin().equals(origin));
    }
    if (had) {
      guard.markStale("member " + origin + " left the group while holding it stale");
      synchronized (this) {
        holds.removeIf(op -> op.origin().equals(origin));
        holdCount = holds.size();
      }
    }
  }

  /**
   * This member lapsed (its lease ran out, it must rejoin and rebuild) or left the group: open
   * leaves are cancelled (their fingerprints stay; a {@code gone} arriving later is dropped), open
   * enters and holds stay. Why no present key is then reported absent: an open enter's key may
   * become visible at any time after this (its writer had this member's acknowledgement, and may be
   * paused between the acknowledgement and its commit); it stays in flight, so every rebuild of
   * this guard keeps it until its writer's end arrives ({@link #enterEnded}, applied whatever
   * happened here meanwhile: visible only after the key is visible at the source, abort only if it
   * never was) or its writer is lost ({@link #originLost}: then for good).
   */
  public void lapsed() {
    cancelLeaves(op -> true);
  }

  private void cancelLeaves(Predicate<Op> which) {
    for (Op op : List.copyOf(leaves.keySet())) {
      PendingLeave<K> leave = which.test(op) ? leaves.remove(op) : null;
      if (leave != null) {
        leave.cancel();
      }
    }
  }

  /**
   * Enters of lost origins still in flight ({@link #originLost}), whose end has not arrived: each
   * keeps a fingerprint this guard never drops (a false positive if the write never happened).
   * Bounded by the enters each lost member had begun and not ended when it was lost (its concurrent
   * writes: at most one open enter per writing thread, or one transaction's batch), summed over the
   * members lost in this guard's life.
   */
  public int orphaned() {
    return orphans.size();
  }

  /** Remote enters and leaves begun here and not ended. */
  public int open() {
    return enters.size() + leaves.size();
  }
}
