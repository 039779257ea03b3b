/**
 * Guards of one name on all members of an embedded Hazelcast 5.x cluster, joined into one
 * replicated guard ({@link io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup}). Writes go
 * through {@link io.github.cuckooguard.spi.ReplicatedGuard}; lookups stay local and lock-free.
 * Membership, failure detection and messaging are Hazelcast's: the cluster's member list and {@code
 * MembershipListener}, its failure detector (a member it removes is treated as silent), and its
 * {@code IExecutorService} ({@code submitToMember}: one task per member, whose result is that
 * member's acknowledgement). There is no membership list or heartbeat of our own; the lease renewal
 * is a round of executor tasks.
 *
 * <h2>Definitions</h2>
 *
 * <ul>
 *   <li><b>Lease.</b> Member M holds a lease until {@code t0 + lease} on its own monotonic clock
 *       ({@code System.nanoTime()}), where {@code t0} is read before M sends a renewal round and
 *       every other current member of the cluster granted that round (a member without a guard of
 *       this name answers "no guard", which counts as a grant). M renews every lease / 3. A grantor
 *       refuses once it has <em>revoked</em> M (below) at M's current epoch.
 *   <li><b>Epoch.</b> A number M takes at start and at every lapse (lease run out, renewal or join
 *       refused); messages carry the target's epoch, and M applies none of an older epoch.
 *   <li><b>Complete.</b> M's filter is complete at epoch e once a rebuild requested after every
 *       member granted M's JOIN at e has swapped in: by default a rebuild from another member's
 *       dump (Joining, below), or else from M's own {@link io.github.cuckooguard.KeySource}.
 *   <li>M answers "definitely absent" only if no other member's hold is open on M (guarantee 5),
 *       its filter is complete, its lease has not run out, and its local guard says so; otherwise
 *       "might contain".
 * </ul>
 *
 * <h2>Guarantees</h2>
 *
 * <ol>
 *   <li><b>Enter before visible, everywhere.</b> {@code beginEnter} returns only when every other
 *       member that joined at its current epoch has applied the enter (the key is in flight on its
 *       own guard until the writer's {@code visible()}/{@code abort()} reaches it, so its rebuilds
 *       keep it), or the writer revoked that member and waited until {@code lastGrant + lease × (1
 *       + 2 × maxClockDrift) + margin} on the writer's clock, by when the member's lease and
 *       acceptance window have closed and cannot reopen at that epoch. <b>Fence:</b> a writer goes
 *       on past a member of its view that did not acknowledge only after a fence round, sent after
 *       those waits, in which no member answered that Hazelcast removed the writer and at least
 *       {@code minimumMembers} members (the writer included) confirmed that it is in their member
 *       list; otherwise the write fails with {@code GroupUnavailableException} and nothing becomes
 *       visible. A member grants nothing (no JOIN, renewal, begin, hold or fence) to a member that
 *       is not in its Hazelcast member list: REMOVED if Hazelcast removed it there (a member UUID
 *       is never reused; a restarted or merged member comes back under a new one), NACK if it has
 *       not seen it yet.
 *   <li><b>No silent member answers absent.</b> Follows from 1: a member that did not apply an
 *       enter holds no lease by the time its key becomes visible, and regains one only by a JOIN at
 *       a new epoch and a complete rebuild. A JOIN is granted only after the grantor's enters begun
 *       before it have ended, so the rebuild's scan sees every key that is visible then, and later
 *       enters reach the joiner. An enter a member applied stays in flight there until the writer's
 *       end arrives, across the member's lapses and after the writer was removed (then for good if
 *       no end comes): a writer that Hazelcast removed grants no JOIN any more, so its acknowledged
 *       write may become visible after the rebuild's scan, and the rebuild must carry the key. Ends
 *       are applied at any epoch, so a lapse does not strand them.
 *   <li><b>Leaves after gone, paired.</b> {@code beginLeave} is delivered like an enter (ack or
 *       revocation wait) before the removal; {@code gone()}/{@code cancel()} follow without
 *       waiting. A member applies {@code gone} only for a leave whose announcement it applied at
 *       the same epoch. A lost or late leave is a false positive.
 *   <li><b>Rollback.</b> {@code abort()} removes the writer's fingerprint and, on every member that
 *       applied the begin, exactly the copy that begin added.
 *   <li><b>Writes of unknown keys, held.</b> {@code ReplicatedGuard.hold()} (for a bulk or native
 *       statement, whose rows no member is told one by one) is delivered like an enter (ack or
 *       revocation wait); when it returns, every other member that can still answer "absent"
 *       answers "might contain" for every key until the hold ends there. A member that did not
 *       apply it cannot complete a JOIN while the hold is open (the grantor's JOIN drain waits for
 *       it as for an open enter), so its rebuild cannot scan before the write commits. The hold
 *       ends on a member only by its release (sent after the writer's transaction completed,
 *       retried until applied or the member left) or, once Hazelcast removed the writer there, a
 *       revocation wait (lease × (1 + 2 × maxClockDrift) + margin) after the removal, and in both
 *       cases only after the member's guard was marked stale: it answers "absent" again only after
 *       a rebuild that started after the commit (from its own source, or from a copy of a member
 *       that has the write's rows, see Joining). A lapse does not end a hold. The holder marks its
 *       own guard stale when it releases. The writer fences before it commits ({@code
 *       ReplicatedGuard.Hold.fence()}, which the Hibernate integration calls in the transaction's
 *       before-completion phase), which fails unless every member that applied the hold confirms: a
 *       fence this member confirmed was confirmed before the removal here, so a commit right after
 *       it comes before the hold ends here (see A4 for what is left).
 *   <li><b>Joining and rejoining.</b> A member J that joins, or rejoins after a lapse (a split, a
 *       pause, a lost lease), passes through until it is complete at its current epoch e. Once
 *       every member granted its JOIN at e, J installs a rebuild (from then on it keeps a copy for
 *       every enter and leave J applies, and for those in flight on J at the install) and only then
 *       asks the other members, one after the other, for a snapshot. A member P serves one only
 *       while it may answer "absent" itself: a fresh lease, a complete filter, no hold open on it,
 *       its guard not in pass-through, checked under its receiver lock before and after the copy,
 *       which is taken under its guard's write lock (between whole begins and ends). P streams the
 *       {@code scanDump} chunks of that one copy, in pieces of at most 1 MiB per executor task; J
 *       loads one copy's chunks into one loader (each chunk carries its copy's dump id, so chunks
 *       of two copies are refused), adds the copies its rebuild kept and swaps the result in. If P
 *       dies mid-stream, J asks the next member with a new loader (a loader yields no filter until
 *       every chunk of one copy passed its checks), else scans its KeySource; J passes through
 *       meanwhile. If J dies mid-stream, P drops J's session (its copy) when Hazelcast removes J,
 *       or after a minute idle; the session holds no lock a writer takes.
 *       <p>Why J, complete, answers "absent" for no present key k. Take the incarnation of k that
 *       is present. (a) If it became visible before P took the copy, it was visible then, and P,
 *       complete and leased at that instant, held it: a key made visible without P's
 *       acknowledgement became visible only after P's lease had run out (guarantee 1), one made
 *       visible before P's own JOIN is in P's rebuilt filter (by this argument or the scan's), and
 *       one written under a hold is in it because P passed through, holding and then stale, until a
 *       rebuild that started after the write. So k is in the copy. (A hold that reaches P only
 *       after the copy was begun after J's JOIN was granted, so it reaches J as well, which then
 *       passes through as guarantee 5 says.) (b) If it became visible after the copy, hence after
 *       J's install: had its enter begun on its writer before that writer granted J's JOIN, the
 *       grant would have waited for it to end (the JOIN drain), before the install; so it began
 *       after the grant, and the writer delivered it to J before k became visible (or revoked J and
 *       waited out J's lease at e, and J cannot complete at e). J applied it before the install
 *       (then it was still in flight at the install) or after; either way the rebuild kept a copy.
 *       A leave or abort that J applies during the rebuild removes only a copy the rebuild kept for
 *       that write, never one of the loaded filter, so no other key loses its copy. A write of
 *       unknown keys: its hold is in the JOIN drain, so J's JOIN is granted only after the holder
 *       released it, and the holder marks its own guard stale before that; no member serves a copy
 *       without the write's rows, as in (a).
 *       <p>If P dies, times out or refuses mid-stream, J asks the next member with a new loader;
 *       while every member refuses it asks again for two leases; if none can serve a copy, the same
 *       rebuild scans J's own {@link io.github.cuckooguard.KeySource} (as in guarantee 2). A
 *       renewal from a member that has no record here (it was in the group before this member) is
 *       granted and records it at its epoch, so that a join does not make the others lapse: until
 *       then this member's writes asked it as a stranger (at whatever epoch it is), and each write
 *       decides from one read of the record how to ask it, so no write misses it; a member that was
 *       ever recorded (also one that left, or was revoked) is judged by its record.
 *   <li><b>Writer cost.</b> A writer waits at most about ack timeout + lease × (1 + 2 drift) +
 *       margin for a member that neither answers nor was removed (default 150 + 306 + 10 ms), plus
 *       one more ack timeout for the fence, and the first writes of a freshly joined group object
 *       wait one such lease.
 * </ol>
 *
 * <h2>Assumptions</h2>
 *
 * <ul>
 *   <li>A1: {@code System.nanoTime()} is monotonic on each member (it keeps running while a process
 *       is paused, e.g. by SIGSTOP or a GC pause, which is what makes the pause safe).
 *   <li>A2: two members' clocks run at rates within {@code maxClockDrift} of each other (default 1
 *       %); no synchronised wall clocks are needed.
 *   <li>A3: no split brain, or {@code minimumMembers} set to a majority of the cluster. Each side
 *       of a partition renews leases from its own members only; a writer on one side waits out the
 *       other side's leases as it last granted them, but the other side keeps renewing without it.
 *       With {@code minimumMembers} a majority, a side with fewer members grants itself no lease
 *       (it passes through) and fails its writes, and a fence needs a majority's confirmation. The
 *       default (1) cannot know the cluster's size and protects nothing here. A split needs no
 *       network fault: a writer paused longer than Hazelcast's failure detection (60 s by default)
 *       is removed. While its view still lists the others, they confirm nothing: a message of it
 *       that reaches the group is refused (REMOVED), but Hazelcast mostly does not run a removed
 *       member's operations at all, so its fence times out and fails only if fewer than {@code
 *       minimumMembers} confirm; once its own failure detection has removed them it is alone, which
 *       again only {@code minimumMembers} ≥ 2 refuses. <b>With the default (1) a resumed writer is
 *       not stopped: set {@code minimumMembers} to a majority.</b> Left: a writer removed after its
 *       fence was confirmed and before its key becomes visible, i.e. a pause of the whole failure
 *       detection exactly there.
 *   <li>A4: every writer of the tracked set writes through the group, with enters for the keys it
 *       knows and a hold for writes whose keys it does not know (writes from elsewhere, such as SQL
 *       from another application, are outside the promise: {@code markStale} and a rebuild on every
 *       member). A held write commits only after its fence passed just before the commit; the other
 *       members keep a removed writer's hold for a revocation wait after the removal. Left: a
 *       writer that pauses between its fence and the database's commit for longer than that wait
 *       plus the time Hazelcast took to remove it (about a lease plus the failure detection) is a
 *       write from elsewhere. (An enter in the same position is covered: a member keeps a lost
 *       origin's open enters in flight, across its own lapses too, until their end arrives or for
 *       good, at the price of a false positive each.)
 *   <li>A5: the guard has a {@link io.github.cuckooguard.KeySource}; without one a member never
 *       completes and passes through for good.
 *   <li>A6: keys are serializable by Hazelcast; the group name is the same on every member.
 *   <li>A7: Hazelcast's member lists converge within one lease. A writer asks a member that never
 *       joined with it (its list may lack the writer) at whatever epoch it is; if that member does
 *       not apply the write, the writer waits one full lease from then, which outlasts every lease
 *       the member holds only if the member's next rounds include the writer.
 * </ul>
 *
 * <h2>Limits today</h2>
 *
 * Each enter or leave is one round trip; enters begun locally can be replicated together ({@code
 * ReplicatedGuard.replicate}: one message per member for the batch, applied whole before the
 * acknowledgement), which the Hibernate integration does for the inserts of a flush (and of a
 * transaction's commit). Ends are sent without waiting, the first at once and those made while a
 * batch of ends is on its way together in the next (one message per member); a peer-dump join holds
 * one copy of the serving member's filter per joiner while it streams (and blocks that member's
 * writes for the copy); an enter that stays open for longer than lease / 3 delays other members'
 * joins (they retry), and so does an open hold, for as long as its write's transaction runs; a hold
 * costs one round trip and a rebuild from its own source on every member after its release, the
 * holder included (until it swapped in, the holder serves no dump); a joiner loads a dump and also
 * keeps a copy per write it applied meanwhile, so a key written during the transfer holds a spare
 * copy until the next rebuild (a false positive); an end lost in transit (or never sent: the
 * writer's member left or its group was closed first) leaves a remote key in flight for good (a
 * false positive, and a few bytes), at most the enters each such writer had open.
 */
@NullMarked
package io.github.cuckooguard.cluster.hazelcast;

import org.jspecify.annotations.NullMarked;
