package io.github.cuckooguard.spi;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The messaging and lease half of a replicated guard, implemented by an engine module (Hazelcast,
 * later Redis). The engine delivers each message to the {@link RemoteWrites} of the guard of the
 * same name on every other member, and tells the writer when it may proceed.
 *
 * <p>Contract, on which the no-false-negative argument of {@link ReplicatedGuard} rests:
 *
 * <ol>
 *   <li>{@link #enterBegun} and {@link #leaveBegun} return normally only when every other member
 *       either has <em>applied</em> the message ({@link RemoteWrites#enterBegun} / {@link
 *       RemoteWrites#leaveBegun} returned there; acknowledging before applying is the bug this
 *       forbids) or can no longer answer "definitely absent" until it has a complete filter again
 *       (its lease ran out and cannot be renewed without it passing through a rebuild that sees the
 *       write). Otherwise they throw, and the writer does not proceed.
 *   <li>A member whose engine reports {@link #mayAnswerAbsent()} false answers "might contain" for
 *       every key; true only while it holds a fresh lease and its filter is complete.
 *   <li>The end messages ({@link #enterEnded}, {@link #leaveEnded}) may be delivered late or lost:
 *       a lost end leaves a fingerprint in place (a false positive), never removes one that a
 *       present key needs.
 *   <li>A <em>hold</em> ({@link #holdBegun}) is delivered and waited for as a begin is (rule 1). A
 *       member that applied it answers "might contain" for every key until the hold ends there, and
 *       it ends only after the member's guard was marked stale ({@link RemoteWrites#holdEnded}) or
 *       its origin left; the release ({@link #holdEnded}) may be late, but must not be lost while
 *       both members stay in the group (the engine retries it), or the member passes through until
 *       the origin leaves.
 * </ol>
 *
 * @param <K> the key type; the engine must be able to carry it to other members
 */
public interface GroupEngine<K> {

  /**
   * Delivers the begin of an enter of {@code key} (operation {@code op} of this member) and waits
   * as the interface comment says.
   *
   * @throws GroupUnavailableException if the engine cannot establish rule 1 in time
   * @throws InterruptedException if interrupted while waiting
   */
  void enterBegun(long op, K key) throws InterruptedException;

  /**
   * Delivers the begins of several enters in one round trip per member ({@code ops[i]} enters
   * {@code keys.get(i)}) and waits as {@link #enterBegun} does, for every one of them: when this
   * returns, rule 1 holds for each key of the batch. A member that acknowledges the batch has
   * applied all of its begins; one that does not is waited out once for the whole batch. The
   * default delivers them one by one.
   *
   * @throws GroupUnavailableException if the engine cannot establish rule 1 in time
   * @throws InterruptedException if interrupted while waiting
   */
  default void entersBegun(long[] ops, List<K> keys) throws InterruptedException {
    for (int i = 0; i < ops.length; i++) {
      enterBegun(ops[i], keys.get(i));
    }
  }

  /**
   * Delivers the end of enter {@code op}: visible, or aborted (the remote members remove the
   * fingerprint).
   */
  CompletionStage<Void> enterEnded(long op, boolean visible);

  /**
   * Delivers the announcement of a leave of {@code key} and waits as {@link #enterBegun} does.
   *
   * @throws GroupUnavailableException if the engine cannot establish rule 1 in time
   * @throws InterruptedException if interrupted while waiting
   */
  void leaveBegun(long op, K key) throws InterruptedException;

  /** Delivers the end of leave {@code op}: gone, or cancelled (the key stayed). */
  CompletionStage<Void> leaveEnded(long op, boolean gone);

  /**
   * Delivers a hold (operation {@code op} of this member): a write whose keys are unknown (a bulk
   * or native statement, a stored procedure) is about to run, so every other member must answer
   * "might contain" for every key until {@link #holdEnded}. Waits as {@link #enterBegun} does (rule
   * 1), so when it returns every member that can still answer "definitely absent" holds it. While
   * the hold is open the engine must not let a member complete a join (it waits for the hold as for
   * an open enter), since that member's rebuild could scan before the write commits.
   *
   * <p>The default cannot hold the group and throws: the caller must then not run the write (an
   * engine without holds cannot keep the other members from answering "absent" for its rows).
   *
   * @throws UnsupportedOperationException if the engine cannot hold the group (the default)
   * @throws GroupUnavailableException if the engine cannot establish rule 1 in time
   * @throws InterruptedException if interrupted while waiting
   */
  default void holdBegun(long op) throws InterruptedException {
    throw new UnsupportedOperationException(
        getClass().getName()
            + " cannot hold the group in pass-through for a write of unknown keys");
  }

  /**
   * Ends hold {@code op}, after the write it covered was committed or rolled back: every member
   * that applied it marks its guard stale (a rebuild from its {@link
   * io.github.cuckooguard.KeySource} that starts now sees the committed rows) before it stops
   * holding. Delivered without waiting; the engine retries it until each member applied it or left.
   * The default does nothing (no hold was ever delivered: {@link #holdBegun} threw).
   */
  default CompletionStage<Void> holdEnded(long op) {
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Checks, just before the write of hold {@code op} commits, that this member is still a member of
   * the group in the eyes of every member that applied the hold, so that they still hold it ({@link
   * ReplicatedGuard.Hold#fence()}). An engine ends a lost member's holds only after a delay that
   * outlasts any fence that member passed.
   *
   * <p>The default cannot fence and throws.
   *
   * @throws UnsupportedOperationException if the engine cannot fence (the default)
   * @throws GroupUnavailableException if this member may have been removed from the group; the
   *     write must not commit
   * @throws InterruptedException if interrupted while waiting
   */
  default void holdFenced(long op) throws InterruptedException {
    throw new UnsupportedOperationException(getClass().getName() + " cannot fence a held write");
  }

  /**
   * Whether this member may answer "definitely absent" now (fresh lease, complete filter). The two
   * conditions must be judged from one state: true only if a lease that was held while the filter
   * was complete still runs at a clock reading taken during this call. Reading a "complete" flag
   * and a lease end separately is not enough: a lapse between the reads can pair the old flag with
   * the lease end written at or after the lapse. False while a remote hold is open here ({@link
   * RemoteWrites#holding()}), read before the lease.
   */
  boolean mayAnswerAbsent();
}
