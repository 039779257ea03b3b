package io.github.cuckooguard.spi;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One member's view of a guard replicated over a group: writes go to the local guard and, through
 * the {@link GroupEngine}, to every other member's; lookups stay local and take no lock.
 *
 * <p>Why no member answers "definitely absent" for a present key:
 *
 * <ol>
 *   <li><b>Enter before visible, everywhere.</b> {@link #beginEnter} stores the fingerprint locally
 *       (in flight), then returns only when the engine established that every other member applied
 *       the begin or can no longer answer absent (engine rule 1). The caller makes the key visible
 *       only after that. A member that applied it keeps the key in flight until {@link
 *       Enter#visible()} reaches it, then tracked until its leave; its rebuilds keep an in-flight
 *       key and scan a visible one.
 *   <li><b>Absent only with a lease.</b> {@link #mightContain} answers false only when the local
 *       guard does and the engine says this member may answer absent (a fresh lease, a complete
 *       filter). A member that missed a begin lost its lease before the writer went on.
 *   <li><b>Leaves after gone.</b> {@link #beginLeave} announces the leave everywhere (same wait)
 *       before the caller removes the key; {@link Leave#gone()} is delivered after. A remote gone
 *       whose announcement was not applied is dropped ({@link RemoteWrites}). A late or lost leave
 *       is a false positive. Over a source that may apply one write twice, a leave during which an
 *       enter of its key was open on the leaving member is cancelled instead ({@link OpenEnters}).
 *   <li><b>Rollback, paired.</b> {@link Enter#abort()} removes the local fingerprint and sends the
 *       abort; each member that applied the begin removes exactly the copy it added.
 *   <li><b>Writes of unknown keys, held.</b> {@link #hold} returns only when every other member
 *       that can still answer "definitely absent" holds (answers "might contain" for every key);
 *       the caller runs the write after that and calls {@link Hold#release()} after its transaction
 *       completed. Each member then marks its guard stale before it stops holding, so it answers
 *       "absent" again only after a rebuild from its own source that started after the commit
 *       ({@link RemoteWrites#holdEnded}). The local guard is the caller's: it marks it stale before
 *       the write and again after the commit, as without a group.
 * </ol>
 *
 * Thread-safe; the handles are single-use and owned by one thread at a time.
 *
 * @param <K> the key type
 */
public final class ReplicatedGuard<K> {

  /**
   * Operation numbers, unique in this JVM rather than per replicated guard: a receiver keys a
   * remote write by its origin (a member) and number, and keeps an open enter until its end
   * arrives. A group closed with an enter open and joined again on the same member would otherwise
   * number its first write like the old open one, and the receiver would take its begin for a
   * redelivery and not apply it: a key made visible that the receiver lacks.
   */
  private static final AtomicLong OPS = new AtomicLong();

  private final CuckooGuard<K> local;
  private final GroupEngine<K> engine;
  private final OpenEnters<K> openEnters;

  /** Replicates {@code local} through {@code engine}. */
  public ReplicatedGuard(CuckooGuard<K> local, GroupEngine<K> engine) {
    this(local, engine, OpenEnters.none());
  }

  /**
   * Replicates {@code local} through {@code engine}; a leave during which an enter of its key was
   * open on this member ({@code openEnters}, shared with this member's {@link RemoteWrites}) is
   * cancelled instead of gone, everywhere ({@link Leave#gone()}). For a source that may apply one
   * write twice ({@link OpenEnters} says why).
   */
  public ReplicatedGuard(CuckooGuard<K> local, GroupEngine<K> engine, OpenEnters<K> openEnters) {
    this.local = Objects.requireNonNull(local, "local");
    this.engine = Objects.requireNonNull(engine, "engine");
    this.openEnters = Objects.requireNonNull(openEnters, "openEnters");
  }

  /** This member's guard (it also holds the other members' writes). */
  public CuckooGuard<K> local() {
    return local;
  }

  /**
   * False only if {@code key} is definitely absent: the local guard says so and this member holds a
   * fresh lease with a complete filter. Local and lock-free.
   */
  public boolean mightContain(K key) {
    Objects.requireNonNull(key, "key");
    if (!engine.mayAnswerAbsent()) {
      return true;
    }
    return local.mightContain(key);
  }

  /**
   * Begins a replicated enter: returns once the key is in flight on every member that can still
   * answer "definitely absent". Make the key visible after this returns.
   *
   * @throws GroupUnavailableException if the group could not be made safe in time; the local enter
   *     is aborted and the key must not be made visible
   * @throws InterruptedException if interrupted while waiting; the local enter is aborted
   */
  public Enter<K> beginEnter(K key) throws InterruptedException {
    PendingEnter<K> pending = local.beginEnter(key);
    openEnters.enterBegun(key);
    long op = OPS.incrementAndGet();
    boolean delivered = false;
    try {
      engine.enterBegun(op, key);
      delivered = true;
    } finally {
      if (!delivered) {
        pending.abort();
        openEnters.enterEnded(key);
        engine.enterEnded(op, false);
      }
    }
    return new Enter<>(this, pending, op);
  }

  /**
   * Replicates enters already begun on the local guard ({@link CuckooGuard#beginEnter} of {@link
   * #local()}), all in one round trip per member: returns once every key is in flight on every
   * member that can still answer "definitely absent", as {@link #beginEnter} does for one. Make the
   * keys visible after this returns. A writer that collects the enters of a transaction begins each
   * locally when it is written (before its statement) and replicates them together before the
   * commit.
   *
   * @param begun local enters not yet ended; from here on end them through the returned handles (in
   *     the same order), never directly
   * @throws GroupUnavailableException if the group could not be made safe in time; every local
   *     enter is aborted and no key may be made visible
   * @throws InterruptedException if interrupted while waiting; every local enter is aborted
   */
  public List<Enter<K>> replicate(List<PendingEnter<K>> begun) throws InterruptedException {
    long[] opIds = new long[begun.size()];
    List<K> keys = new ArrayList<>(begun.size());
    for (int i = 0; i < opIds.length; i++) {
      opIds[i] = OPS.incrementAndGet();
      keys.add(begun.get(i).key());
      // Counted from here: before this the key cannot be visible through this write.
      openEnters.enterBegun(begun.get(i).key());
    }
    boolean delivered = false;
    try {
      if (opIds.length > 0) {
        engine.entersBegun(opIds, keys);
      }
      delivered = true;
    } finally {
      if (!delivered) {
        for (int i = 0; i < opIds.length; i++) {
          begun.get(i).abort();
          openEnters.enterEnded(keys.get(i));
          engine.enterEnded(opIds[i], false);
        }
      }
    }
    List<Enter<K>> enters = new ArrayList<>(opIds.length);
    for (int i = 0; i < opIds.length; i++) {
      enters.add(new Enter<>(this, begun.get(i), opIds[i]));
    }
    return enters;
  }

  /**
   * Announces a replicated leave: returns once every member that can still answer absent has the
   * leave announced. Remove the key at the source after this returns.
   *
   * @throws GroupUnavailableException if the group could not be made safe in time; the local leave
   *     is cancelled and the key must not be removed yet
   * @throws InterruptedException if interrupted while waiting; the local leave is cancelled
   */
  public Leave<K> beginLeave(K key) throws InterruptedException {
    PendingLeave<K> pending = local.beginLeave(key);
    long overlap = openEnters.leaveBegun(key);
    long op = OPS.incrementAndGet();
    boolean delivered = false;
    try {
      engine.leaveBegun(op, key);
      delivered = true;
    } finally {
      if (!delivered) {
        pending.cancel();
        openEnters.leaveEnded(key, overlap, 0);
        engine.leaveEnded(op, false);
      }
    }
    return new Leave<>(this, pending, op, overlap);
  }

  /**
   * Holds every other member in pass-through for a write whose keys are unknown (a bulk or native
   * statement): returns once every member that can still answer "definitely absent" answers "might
   * contain" for every key until {@link Hold#release()}. Run the write after this returns; release
   * after its transaction committed or rolled back (never before: a member's rebuild after the
   * release must see the committed rows). The local guard is not touched: mark it stale yourself.
   *
   * @throws UnsupportedOperationException if the engine cannot hold the group; the write must not
   *     run
   * @throws GroupUnavailableException if the group could not be made safe in time; the members that
   *     applied the hold are released and the write must not run
   * @throws InterruptedException if interrupted while waiting; as above
   */
  public Hold hold() throws InterruptedException {
    long op = OPS.incrementAndGet();
    boolean delivered = false;
    try {
      engine.holdBegun(op);
      delivered = true;
    } finally {
      if (!delivered) {
        engine.holdEnded(op); // the write does not run: releasing early is safe
      }
    }
    return new Hold(engine, op);
  }

  /**
   * A hold on every other member, from {@link #hold()}. {@link #release()} once; {@link #close()}
   * releases unless it was released.
   */
  public static final class Hold implements AutoCloseable {
    private final GroupEngine<?> engine;
    private final long op;
    private final AtomicBoolean released = new AtomicBoolean();

    private Hold(GroupEngine<?> engine, long op) {
      this.engine = engine;
      this.op = op;
    }

    /**
     * The write's transaction completed (committed or rolled back): every member marks its guard
     * stale, then stops holding. Idempotent. The returned stage completes when the release was
     * sent.
     */
    public CompletionStage<Void> release() {
      if (!released.compareAndSet(false, true)) {
        return CompletableFuture.completedFuture(null);
      }
      return engine.holdEnded(op);
    }

    /**
     * Call just before the write's transaction commits (in its {@code beforeCompletion}): throws if
     * this member may have been removed from the group meanwhile (a pause longer than the cluster's
     * failure detection), since the others then end its hold after a short delay and may rebuild
     * before the commit; roll the transaction back then. What remains is a pause between this call
     * and the commit itself, of about a lease or longer.
     *
     * @throws GroupUnavailableException if the write must not commit
     * @throws InterruptedException if interrupted while waiting
     */
    public void fence() throws InterruptedException {
      engine.holdFenced(op);
    }

    /** Whether {@link #release()} was called. */
    public boolean isReleased() {
      return released.get();
    }

    @Override
    public void close() {
      release();
    }
  }

  /**
   * A replicated enter that has begun everywhere it needs to. Exactly one of {@link #visible()} and
   * {@link #abort()}; {@link #close()} aborts unless one was called.
   *
   * @param <K> the key type
   */
  public static final class Enter<K> implements AutoCloseable {
    private final ReplicatedGuard<K> group;
    private final PendingEnter<K> pending;
    private final long op;

    private Enter(ReplicatedGuard<K> group, PendingEnter<K> pending, long op) {
      this.group = group;
      this.pending = pending;
      this.op = op;
    }

    /** The key is visible at the source; delivered to the others after. */
    public CompletionStage<Void> visible() {
      pending.visible();
      group.openEnters.enterEnded(pending.key());
      return group.engine.enterEnded(op, true);
    }

    /**
     * The key never became visible: removes the fingerprint here and, paired, on every member that
     * added one.
     */
    public CompletionStage<Void> abort() {
      pending.abort();
      group.openEnters.enterEnded(pending.key());
      return group.engine.enterEnded(op, false);
    }

    /** The key being entered. */
    public K key() {
      return pending.key();
    }

    @Override
    public void close() {
      if (!pending.isDone()) {
        abort();
      }
    }
  }

  /**
   * A replicated leave that has been announced everywhere it needs to. Exactly one of {@link
   * #gone()} and {@link #cancel()}; {@link #close()} cancels unless one was called.
   *
   * @param <K> the key type
   */
  public static final class Leave<K> implements AutoCloseable {
    private final ReplicatedGuard<K> group;
    private final PendingLeave<K> pending;
    private final long op;
    private final long overlap;

    private Leave(ReplicatedGuard<K> group, PendingLeave<K> pending, long op, long overlap) {
      this.group = group;
      this.pending = pending;
      this.op = op;
      this.overlap = overlap;
    }

    /**
     * The key is gone from the source: removes it here, then on the others; but if this guard
     * tracks {@link OpenEnters} and an enter of the key was open on this member at some moment
     * since {@link #beginLeave}, cancels the leave everywhere instead (the copy stays: {@link
     * OpenEnters} says why).
     */
    public CompletionStage<Void> gone() {
      return gone(0);
    }

    /**
     * As {@link #gone()}, for a call that itself began {@code ownEnters} enters of the key after
     * this leave (an entry processor that may create or remove its entry): those do not count as
     * overlapping.
     *
     * @throws IllegalArgumentException if {@code ownEnters} is negative
     */
    public CompletionStage<Void> gone(int ownEnters) {
      if (ownEnters < 0) {
        throw new IllegalArgumentException("ownEnters (" + ownEnters + ") must be >= 0");
      }
      if (group.openEnters.leaveEnded(pending.key(), overlap, ownEnters)) {
        pending.cancel();
        return group.engine.leaveEnded(op, false);
      }
      pending.gone();
      return group.engine.leaveEnded(op, true);
    }

    /** The key stayed: the leave is cancelled everywhere. */
    public CompletionStage<Void> cancel() {
      pending.cancel();
      group.openEnters.leaveEnded(pending.key(), overlap, 0);
      return group.engine.leaveEnded(op, false);
    }

    /** The key being removed. */
    public K key() {
      return pending.key();
    }

    @Override
    public void close() {
      if (!pending.isDone()) {
        cancel();
      }
    }
  }
}
