package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import com.hazelcast.core.LifecycleEvent;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spi.GroupEngine;
import io.github.cuckooguard.spi.GroupUnavailableException;
import io.github.cuckooguard.spi.OpenEnters;
import io.github.cuckooguard.spi.RemoteWrites;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast engine of a replicated guard: joins the guard of one name on this member to the
 * guards of the same name on every member of the cluster. Obtain one with {@link #newBuilder},
 * write through {@link #guard()}, close it before the member shuts down. See the package comment
 * for the guarantees and their assumptions.
 *
 * <p>Thread-safe. Lookups ({@link ReplicatedGuard#mightContain}) read one volatile field, then the
 * clock, then the local filter; no network.
 *
 * @param <K> the key type; it must be serializable by Hazelcast (String, Long, {@code
 *     Serializable})
 */
public final class HazelcastGuardGroup<K> implements GroupEngine<K>, AutoCloseable {

  /*
   * Implementation notes: the argument, message by message.
   *
   * Roles. Every member is a writer (enterBegun...), a receiver (handle(BEGIN_*)) and a lease
   * grantor (handle(JOIN/RENEW)) for every other member. Clocks: System.nanoTime() only, never
   * compared across members; a duration measured on one member is at most (1 + drift) times the
   * same real duration measured on another, drift being maxClockDrift (assumption A2).
   *
   * Receiver state (writeLock to change, readLock to apply a message): epoch, acceptUntil,
   * leaseUntil, complete. A receiver applies a BEGIN of its current epoch only while
   * now < acceptUntil, and acknowledges after applying (GroupTask.call returns afterwards).
   * acceptUntil <= t0 + lease of the last round, where t0 is read before the round's tasks are
   * sent; leaseUntil likewise. It answers "absent" only while now < absentUntil, where
   * absentUntil is one volatile field, read before the clock: the leaseUntil of a granted round
   * while the filter is complete at that epoch, otherwise a clock reading taken when it was last
   * written. Every value it ever holds is therefore either a lease some round really got with a
   * complete filter (the writers' revocation waits outlast it) or a time already past for every
   * reader that sees it (the reader reads the clock after the field). Two fields read one after
   * the other (complete, then leaseUntil) are not enough: a reader that read complete == true
   * before a lapse and the clock just before it, then the leaseUntil the lapse or the next JOIN
   * wrote, saw a lease that was never held with that filter, and answered "absent" from an
   * incomplete filter (the lapse moved an expired leaseUntil forward to "now").
   *
   * Grantor: grants a round (JOIN or RENEW) of peer P at epoch e only if P's record is at e and
   * not revoked, and records lastGrant = now (after P's t0 in real time).
   *
   * Writer, BEGIN of op: for each peer P it knows (JOINed), sends with P's epoch and waits for the
   * ack up to ackTimeout. If the ack does not come (timeout, NACK, member gone), under P's monitor:
   * revoked = true, read lastGrant, then wait until lastGrant + lease * (1 + 2 drift) + margin.
   * Claim: after that wait P answers "absent" for no key whose BEGIN it did not apply, at that
   * epoch. Because P's acceptUntil and leaseUntil are at most t0 + lease of a round some grantor
   * granted; this writer granted no round after revoking (monitor), and every round needs this
   * writer's grant while it is a member (a round that misses one grant fails); the last granted
   * round's t0 precedes lastGrant, so in real time P's window closed before the wait ended. After
   * the window P applies no BEGIN of that epoch and answers pass-through; to answer again it must
   * lapse (epoch + 1, see Lapse) and JOIN.
   *
   * JOIN at a new epoch e: the grantor first records e (from then its new writes go to P at e and
   * need P's ack or the revocation wait above), then waits until every enter it began before that
   * (seq <= drainSeq) has ended (visible: now in the source; aborted: not), then grants. P starts
   * its rebuild only after every member granted, so each key is, at the rebuild's scan, either
   * visible (scanned) or in flight on P (the guard keeps it) or not yet begun (its BEGIN reaches P
   * at e, or the writer revoked P and P lapses before answering). P is complete only when that
   * rebuild has swapped in, and only at e.
   *
   * Leaves: BEGIN_LEAVE is delivered like BEGIN_ENTER (ack or revocation wait), so no removal
   * becomes visible while a member that did not announce it could apply a late gone to a filter
   * rebuilt without the key; a gone whose announcement was not applied is dropped (RemoteWrites).
   * Ends (visible/abort/gone/cancel) are sent without waiting, several in one END_BATCH while
   * an earlier batch is on its way; they are applied whatever the epoch and window, since ending
   * an applied begin is always paired (applyEnds).
   *
   * Lapse. A member whose lease ran out (or whose round was refused) moves to a new epoch, cancels
   * its open remote leaves and keeps its open remote enters in flight until their ends arrive
   * (RemoteWrites.lapsed). It must: the writer had its ack and may make the key visible at any
   * later time. If the writer is alive and a member, the lapsed member's JOIN needs its grant,
   * which drains the writer's open enters first; but a writer paused past the failure detection
   * is removed by the others, their JOINs no longer ask it, and it commits its acknowledged write
   * when it resumes, after their rebuilds scanned the source. Kept in flight, the key is carried
   * into each rebuild; if the writer never sends the end (it stays lost), the enter stays in
   * flight for good (RemoteWrites.orphaned: a bounded false positive).
   *
   * Holds (writes of unknown keys: a bulk or native statement). HOLD_STALE is delivered like a
   * BEGIN (ack or revocation wait), so when holdBegun returns, every member that can still answer
   * "absent" answers "might contain" for every key (mayAnswerAbsent reads RemoteWrites.holding()
   * first). The hold's op is registered in entersInFlight like an enter's, so a member that missed
   * it (revoked, lapsed) cannot complete a JOIN before the release: its rebuild would scan before
   * the write commits. RELEASE_HOLD (GroupHolds) is applied at any epoch and marks the guard stale
   * before the hold ends (RemoteWrites.holdEnded); it is retried until applied or the member left.
   * A lapse keeps holds (RemoteWrites.lapsed does not end them); a member that leaves ends its holds on
   * every receiver only lostHoldDelay after its member was removed here (see Fence), again after
   * markStale.
   *
   * Fence. Hazelcast removes a member that was silent longer than its failure detection (a paused
   * process: SIGSTOP, a long GC). The others then renew each other without it; when it resumes, its
   * view still has them for a while. Every write of such a member would find them not
   * acknowledging (they refuse a removed origin) and wait out leases it last granted long ago. So a
   * writer goes on past a member of its view that did not acknowledge only after a FENCE round,
   * sent after the waits, in which no member answered REMOVED and a majority of its view (itself
   * included) confirmed that it is in their member list, and only while its view has at least
   * minimumMembers members; otherwise the write fails (GroupUnavailableException) and nothing is
   * made visible. Receivers answer a JOIN, RENEW, BEGIN_*, HOLD_STALE or FENCE from an origin that
   * is not in their Hazelcast member list with REMOVED if Hazelcast removed it here (member UUIDs
   * are never reused: a restarted or merged member comes back under a new one), else NACK (not
   * seen yet). Why no present key is then reported absent by a non-acknowledging member X: if X
   * has the writer in its list, X's rounds need the writer's grant, which the writer refuses from
   * its revocation on, so X's lease ends by the revocation wait (rule 1 as before); if X removed
   * the writer before confirming, X answered REMOVED (or nothing: Hazelcast mostly does not run
   * a removed member's operations, so X's silence is the common case) and the fence failed unless
   * minimumMembers members that still list the writer confirmed; with minimumMembers a majority, X
   * is then on a minority side of a split, where it grants itself no lease. With the default (1)
   * a silent X does not stop the writer. Left: X removes the writer after
   * confirming its fence, which needs the writer silent for the whole failure detection between the
   * fence and the key becoming visible (a pause exactly there).
   *
   * Lost holds. A hold of a removed origin stays open here for lostHoldDelay = lease * (1 + 2
   * drift) + margin after the removal (or until its release arrives), then ends after markStale.
   * The origin fences before it commits a held write (ReplicatedGuard.Hold.fence -> holdFenced):
   * the fence fails unless every member that acknowledged the hold confirmed it (holdAckers). A
   * FENCE this member confirmed came before the removal here (after it, the origin is not in the
   * member list and gets REMOVED), and every reply is awaited at most the ack timeout, so the
   * origin's commit precedes the hold's end here unless the origin pauses between its fence and
   * its commit for about a lease. A member that did not acknowledge the hold was waited out and
   * cannot complete a JOIN with the origin's grant before the release; one that removed the origin
   * answers its fence REMOVED, if it can be reached at all (else a split: A3).
   */

  /** Lease length by default; the worst-case extra write latency is about ack timeout + lease. */
  public static final long DEFAULT_LEASE_MILLIS = 300;

  /**
   * The shortest lease accepted, in milliseconds ({@link Builder#lease}); the adapters' lease
   * settings check against it at startup.
   */
  public static final long MIN_LEASE_MILLIS = 30;

  /** The smallest {@link Builder#minimumMembers} accepted (1: no split-brain protection). */
  public static final int MIN_MINIMUM_MEMBERS = 1;

  /** The largest {@link Builder#minimumMembers} accepted. */
  public static final int MAX_MINIMUM_MEMBERS = 1000;

  /** Bound on the rate difference of two members' monotonic clocks, by default (1 %). */
  public static final double DEFAULT_MAX_CLOCK_DRIFT = 0.01;

  /** Bytes of a scanDump chunk sent per message of the peer-dump join, by default (1 MiB). */
  public static final int DEFAULT_DUMP_PIECE_BYTES = 1 << 20;

  /** How long a joiner waits for each answer of a peer streaming its dump before it gives up. */
  static final long DUMP_REQUEST_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Added to every revocation wait, for scheduling delay on the waiting side. */
  public static final long SAFETY_MARGIN_MILLIS = 10;

  /**
   * The epoch a writer sends to a member that never JOINed it: applied at whatever epoch the member
   * is.
   */
  static final long ANY_EPOCH = Long.MIN_VALUE;

  private static final String REGISTRY = HazelcastGuardGroup.class.getName() + ".registry";
  private static final Logger LOGGER = System.getLogger(HazelcastGuardGroup.class.getName());

  /**
   * Epochs are unique per JVM, so a guard re-registered under the same member UUID starts above the
   * old one.
   */
  private static final AtomicLong EPOCHS = new AtomicLong(System.currentTimeMillis() << 16);

  private final HazelcastInstance hazelcast;
  private final String name;
  private final CuckooGuard<K> local;
  private final RemoteWrites<K> remote;
  private final ReplicatedGuard<K> replicated;
  private final IExecutorService executor;
  private final UUID self;
  private final long leaseNanos;
  private final long ackTimeoutNanos;
  private final long revocationWaitNanos;
  private final LongSupplier clock;
  private final ScheduledExecutorService renewer;
  private final UUID membershipRegistration;
  private final UUID lifecycleRegistration;
  private final GroupHolds holds;
  private final int minimumMembers;

  /** For each open hold of this member: the members that applied it (they must confirm fences). */
  private final ConcurrentHashMap<Long, Set<UUID>> holdAckers = new ConcurrentHashMap<>();

  /** Members Hazelcast removed from this member's list; their writes and rounds are refused. */
  private final Set<UUID> removedMembers = ConcurrentHashMap.newKeySet();

  private final ReentrantReadWriteLock receiverLock = new ReentrantReadWriteLock();
  private volatile long epoch;
  private volatile long acceptUntil;
  private volatile long leaseUntil;
  private volatile boolean complete;

  /**
   * Readers answer "absent" only while the clock is before this: leaseUntil while complete, else a
   * clock reading no later than its write. Written under the write lock; read once, before the
   * clock.
   */
  private volatile long absentUntil;

  /** Between a lapse (or the start) and the first fully granted JOIN round of the epoch. */
  private boolean joining = true;

  private volatile boolean closed;

  /**
   * Test hook: while set, this member sends no renewal round, as when its renewal thread gets no
   * CPU (a long GC, a starved scheduler) while its readers still run. Nothing but the lease's own
   * expiry then stops it from answering "absent".
   */
  volatile boolean renewalsPaused;

  /**
   * Test hook: runs in every begin's delivery after it read the peer records it asks by (their
   * epochs), before it waits for the acknowledgements; a renewal recorded meanwhile must not leave
   * a member unasked.
   */
  volatile Runnable afterPeerRecordsRead = () -> {};

  private final ConcurrentHashMap<UUID, Peer> peers = new ConcurrentHashMap<>();
  private final Object seqLock = new Object();
  private long enterSeq;
  private final ConcurrentHashMap<Long, Long> entersInFlight = new ConcurrentHashMap<>();

  /**
   * Ends not sent yet, and whether a batch of ends is on its way: while one is, further ends wait
   * here and go together in the next (one message per member per batch instead of one per end).
   */
  private final Object endsLock = new Object();

  private List<QueuedEnd> queuedEnds = new ArrayList<>();
  private boolean endsSending;
  private final AtomicLong endMessagesSent = new AtomicLong();
  private final AtomicLong lapses = new AtomicLong();
  private final AtomicLong beginsSent = new AtomicLong();

  /**
   * Writes wait until then: leases granted on this member's behalf before it registered (NO_GUARD)
   * ran out.
   */
  private final long writableFrom;

  /** The peer-dump join: this member's snapshots for joiners, and whether it joins from them. */
  private final DumpServer<K> dumps;

  private final boolean peerDump;
  private final int dumpPieceBytes;
  private final PeerDumpJoin.PieceListener dumpPieceListener;
  private final AtomicLong peerDumpsLoaded = new AtomicLong();

  private HazelcastGuardGroup(Builder<K> b) {
    this.hazelcast = b.hazelcast;
    this.local = b.guard;
    this.name = b.name != null ? b.name : b.guard.name();
    OpenEnters<K> openEnters = b.writesMayRunTwice ? new OpenEnters<>() : OpenEnters.none();
    this.remote = new RemoteWrites<>(local, openEnters);
    this.replicated = new ReplicatedGuard<>(local, this, openEnters);
    this.executor = hazelcast.getExecutorService(b.executorName);
    this.self = hazelcast.getCluster().getLocalMember().getUuid();
    this.leaseNanos = b.lease.toNanos();
    this.ackTimeoutNanos = b.ackTimeout.toNanos();
    this.clock = b.clock;
    this.revocationWaitNanos =
        (long) (leaseNanos * (1 + 2 * b.maxClockDrift))
            + TimeUnit.MILLISECONDS.toNanos(SAFETY_MARGIN_MILLIS);
    long now = clock.getAsLong();
    this.epoch = EPOCHS.incrementAndGet();
    this.acceptUntil = now;
    this.leaseUntil = now;
    this.absentUntil = now;
    this.writableFrom = now + revocationWaitNanos;
    this.holds = new GroupHolds(hazelcast, executor, name, self, leaseNanos);
    this.dumps = new DumpServer<>(this::snapshotForPeer, clock);
    this.peerDump = b.peerDump;
    this.dumpPieceBytes = b.dumpPieceBytes;
    this.dumpPieceListener = b.dumpPieceListener;
    this.minimumMembers = b.minimumMembers;
    if (registry(hazelcast).putIfAbsent(name, this) != null) {
      throw new IllegalStateException(
          "a guard group named '"
              + name
              + "' is already joined on member "
              + self
              + "; close it first");
    }
    this.membershipRegistration =
        hazelcast
            .getCluster()
            .addMembershipListener(
                new MembershipListener() {
                  @Override
                  public void memberAdded(MembershipEvent event) {
                    // A new member JOINs by itself; until then it holds no lease from anyone.
                  }

                  @Override
                  public void memberRemoved(MembershipEvent event) {
                    memberGone(event.getMember().getUuid());
                  }
                });
    // A member that shuts down or is terminated closes its groups: their renewals could only fail
    // from then on, and a closed group answers "might contain" and refuses writes.
    this.lifecycleRegistration =
        hazelcast
            .getLifecycleService()
            .addLifecycleListener(
                event -> {
                  LifecycleEvent.LifecycleState state = event.getState();
                  if (state == LifecycleEvent.LifecycleState.SHUTTING_DOWN
                      || state == LifecycleEvent.LifecycleState.SHUTDOWN) {
                    close();
                  }
                });
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cuckoo-guard-lease-" + name);
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(1, leaseNanos / 3);
    renewer.scheduleWithFixedDelay(this::renewSafely, 0, every, TimeUnit.NANOSECONDS);
    long sweep = TimeUnit.MILLISECONDS.toNanos(DumpServer.IDLE_MILLIS / 4);
    renewer.scheduleWithFixedDelay(
        () -> dumps.dropIdle(clock.getAsLong()), sweep, sweep, TimeUnit.NANOSECONDS);
  }

  /**
   * A builder that joins {@code guard} (on the member {@code hazelcast}) to the guards of the same
   * name on the other members. The guard needs a {@link io.github.cuckooguard.KeySource}: a member
   * completes its filter by a rebuild after it joins; without one it passes through for good.
   */
  public static <K> Builder<K> newBuilder(HazelcastInstance hazelcast, CuckooGuard<K> guard) {
    return new Builder<>(
        Objects.requireNonNull(hazelcast, "hazelcast"), Objects.requireNonNull(guard, "guard"));
  }

  @SuppressWarnings("unchecked")
  private static ConcurrentMap<String, HazelcastGuardGroup<?>> registry(
      HazelcastInstance hazelcast) {
    return (ConcurrentMap<String, HazelcastGuardGroup<?>>)
        hazelcast
            .getUserContext()
            .computeIfAbsent(
                REGISTRY, k -> new ConcurrentHashMap<String, HazelcastGuardGroup<?>>());
  }

  static @Nullable HazelcastGuardGroup<?> registered(HazelcastInstance hazelcast, String name) {
    return registry(hazelcast).get(name);
  }

  /** The replicated guard: write and look up through it. */
  public ReplicatedGuard<K> guard() {
    return replicated;
  }

  /** The group's name (the guard's name unless set). */
  public String name() {
    return name;
  }

  /**
   * Whether this member holds a fresh lease and a complete filter, i.e. may answer "definitely
   * absent".
   */
  @Override
  public boolean mayAnswerAbsent() {
    if (remote.holding()) {
      return false; // a write of unknown keys runs on another member (see holdBegun)
    }
    long until = absentUntil; // first the field, then the clock: see absentUntil
    return clock.getAsLong() - until < 0;
  }

  /**
   * How often this member's lease lapsed (it then passed through until it had rejoined and
   * rebuilt).
   */
  public long lapses() {
    return lapses.get();
  }

  /** Whether this member has a record of {@code member} (a JOIN or a renewal it granted). */
  boolean hasRecordOf(UUID member) {
    return peers.containsKey(member);
  }

  /** Begin messages (enter or leave) this member sent. */
  long beginsSent() {
    return beginsSent.get();
  }

  /** End messages (one per member per batch of ends) this member sent. */
  long endMessagesSent() {
    return endMessagesSent.get();
  }

  /** Remote writes begun on this member and not ended. */
  public int openRemoteWrites() {
    return remote.open();
  }

  /** Open remote enters of members that left, kept in flight ({@link RemoteWrites#orphaned()}). */
  int orphanedRemoteEnters() {
    return remote.orphaned();
  }

  // ---- writer ----

  @Override
  public void enterBegun(long op, K key) throws InterruptedException {
    synchronized (seqLock) {
      entersInFlight.put(op, ++enterSeq);
    }
    deliverBegin(
        GroupTask.Kind.BEGIN_ENTER,
        ep -> new GroupTask(name, GroupTask.Kind.BEGIN_ENTER, self, ep, op, key));
  }

  /**
   * One BEGIN_ENTERS message per member for the whole batch. Why no key of it is reported absent:
   * the receiver applies every begin of the batch under one hold of its read lock, in one epoch and
   * inside its window, and acknowledges only after the last (GroupTask.call returns then); a member
   * that does not acknowledge is revoked and waited out exactly as for a single begin, and that
   * wait covers every key of the batch. Each op is registered for the JOIN drain before the message
   * is sent, as a single enter's is.
   */
  @Override
  public void entersBegun(long[] ops, List<K> keys) throws InterruptedException {
    if (ops.length != keys.size()) {
      throw new IllegalArgumentException(ops.length + " ops for " + keys.size() + " keys");
    }
    synchronized (seqLock) {
      for (long op : ops) {
        entersInFlight.put(op, ++enterSeq);
      }
    }
    List<K> copy = List.copyOf(keys);
    deliverBegin(GroupTask.Kind.BEGIN_ENTERS, ep -> new GroupTask(name, self, ep, ops, copy));
  }

  @Override
  public CompletionStage<Void> enterEnded(long op, boolean visible) {
    entersInFlight.remove(op);
    return deliverEnd(
        visible ? GroupTask.Kind.END_ENTER_VISIBLE : GroupTask.Kind.END_ENTER_ABORT, op);
  }

  @Override
  public void leaveBegun(long op, K key) throws InterruptedException {
    deliverBegin(
        GroupTask.Kind.BEGIN_LEAVE,
        ep -> new GroupTask(name, GroupTask.Kind.BEGIN_LEAVE, self, ep, op, key));
  }

  @Override
  public CompletionStage<Void> leaveEnded(long op, boolean gone) {
    return deliverEnd(gone ? GroupTask.Kind.END_LEAVE_GONE : GroupTask.Kind.END_LEAVE_CANCEL, op);
  }

  /**
   * Holds every other member in pass-through before a write of unknown keys; see the implementation
   * notes (Holds) for why no member answers "absent" for a row it writes.
   */
  @Override
  public void holdBegun(long op) throws InterruptedException {
    synchronized (seqLock) {
      entersInFlight.put(op, ++enterSeq); // a JOIN granted from now on waits for the release
    }
    long wire = holds.wireId(op);
    Set<UUID> acked =
        deliverBegin(
            GroupTask.Kind.HOLD_STALE,
            ep -> new GroupTask(name, GroupTask.Kind.HOLD_STALE, self, ep, wire, null));
    holdAckers.put(op, Set.copyOf(acked)); // they must confirm its fence: see Lost holds
  }

  /**
   * Releases a hold of this member. Its own guard is marked stale first, before the hold leaves the
   * JOIN drain: the write of unknown keys has completed, and this member's filter lacks its rows
   * until a rebuild from its own source that starts now swaps in. A member whose JOIN the hold held
   * back (it missed the hold) is granted as soon as the hold leaves the drain and may then load a
   * dump from here; stale, this member refuses it (a snapshot is taken only outside pass-through)
   * until that rebuild, whose filter has the rows. Every other member that applied the hold refuses
   * too, holding and then stale. (The caller marks its guard stale as well, see {@link
   * ReplicatedGuard#hold()}; the requests coalesce into one rebuild.)
   */
  @Override
  public CompletionStage<Void> holdEnded(long op) {
    local.markStale("this member's hold ended (its write of unknown keys completed)");
    holdAckers.remove(op);
    entersInFlight.remove(op);
    return holds.release(op);
  }

  /** Holds this member began and did not release yet. */
  int openHolds() {
    return holds.open();
  }

  /** Whether a hold of another member is open here (this member then passes through). */
  boolean heldByAnotherMember() {
    return remote.holding();
  }

  private record Sent(UUID member, Peer peer, long epoch, @Nullable Future<Integer> reply) {}

  /** Delivers a begin (see rule 1 and Fence); returns the members that acknowledged it. */
  private Set<UUID> deliverBegin(GroupTask.Kind kind, LongFunction<GroupTask> taskAt)
      throws InterruptedException {
    checkOpen();
    // Before this group registered, other members' rounds got NO_GUARD from here and counted it as
    // a
    // grant; this member has no record of them, so it would not ask them. Their leases resting on
    // such a grant run out by writableFrom; later rounds need this member's real grant (a JOIN
    // here).
    while (writableFrom - clock.getAsLong() > 0) {
      TimeUnit.NANOSECONDS.sleep(writableFrom - clock.getAsLong());
    }
    long deadline = clock.getAsLong() + ackTimeoutNanos;
    Map<UUID, Member> members = otherMembers();
    checkMinimumMembers(members.size() + 1, kind);
    Set<UUID> acked = ConcurrentHashMap.newKeySet();
    List<Sent> sent = new ArrayList<>();
    boolean strangerSilent = false;
    // Each member's record is read once, and that one read decides how it is asked: at the epoch
    // of its record, or, without one, as a stranger at whatever epoch it is. (Reading the records
    // first and asking the members without one afterwards would ask neither way a member recorded
    // in between: grantRenew records a stranger whose renewal it grants, without a JOIN's drain, so
    // that member would renew its lease without this begin.) Records are read after the enter's
    // seq was taken: a peer that JOINs later drains this enter.
    // Members in this member's view that never JOINed here and have no record: their view may not
    // contain this member yet, so they may hold leases it never granted. Ask them at whatever
    // epoch they are; if one does not apply it, a full revocation wait from after its revocation
    // outlasts every lease it holds.
    List<Future<Integer>> strangers = new ArrayList<>();
    List<UUID> strangerIds = new ArrayList<>();
    for (Map.Entry<UUID, Member> e : members.entrySet()) {
      Peer peer = peers.get(e.getKey());
      if (peer == null) {
        strangers.add(executor.submitToMember(taskAt.apply(ANY_EPOCH), e.getValue()));
        strangerIds.add(e.getKey());
        beginsSent.incrementAndGet();
      } else {
        askPeer(e.getKey(), peer, e.getValue(), taskAt, sent);
      }
    }
    // Peers no longer in this member's view: not asked; waited out if they may still be leased.
    for (Map.Entry<UUID, Peer> e : peers.entrySet()) {
      if (!members.containsKey(e.getKey())) {
        askPeer(e.getKey(), e.getValue(), null, taskAt, sent);
      }
    }
    afterPeerRecordsRead.run();
    for (int i = 0; i < strangers.size(); i++) {
      if (acknowledged(strangers.get(i), deadline)) {
        acked.add(strangerIds.get(i));
      } else {
        strangerSilent = true;
        // No more renewals for it from here (grantRenew of a stranger records it as a peer): the
        // wait below starts after every grant this member gave it.
        Peer silent = peers.computeIfAbsent(strangerIds.get(i), u -> new Peer());
        synchronized (silent) {
          silent.revoked = true;
        }
      }
    }
    long strangerWaitUntil = 0;
    if (strangerSilent) {
      strangerWaitUntil = clock.getAsLong() + revocationWaitNanos;
    }
    List<Sent> unacknowledged = new ArrayList<>();
    for (Sent s : sent) {
      if (acknowledged(s.reply(), deadline)) {
        acked.add(s.member());
      } else {
        unacknowledged.add(s);
      }
    }
    for (Sent s : unacknowledged) {
      revokeAndWait(s, kind);
    }
    while (strangerSilent && strangerWaitUntil - clock.getAsLong() > 0) {
      TimeUnit.NANOSECONDS.sleep(strangerWaitUntil - clock.getAsLong());
    }
    if (!acked.containsAll(members.keySet())) {
      fence(kind + " (a member of this member's view did not acknowledge it)", Set.of());
    }
    return acked;
  }

  private void checkMinimumMembers(int view, Object what) {
    if (view < minimumMembers) {
      throw new GroupUnavailableException(
          "guard group '"
              + name
              + "' on "
              + self
              + ": "
              + what
              + " refused: this member sees "
              + view
              + " member(s), fewer than minimumMembers ("
              + minimumMembers
              + "); it may be on the minority side of a split. Retry once the cluster has merged"
              + " or enough members have joined");
    }
  }

  /**
   * Checks that this member is still a member of the group in the eyes of its view: one FENCE
   * round, sent now, in which no member answers that it removed this member, and a majority of the
   * view (this member included, at least minimumMembers) confirms. Call it before a held write
   * commits ({@link ReplicatedGuard.Hold#fence()}); writes call it by themselves when they go on
   * past a member that did not acknowledge. See the implementation notes (Fence, Lost holds).
   *
   * @throws GroupUnavailableException if the fence fails; the write must not become visible
   * @throws InterruptedException if interrupted while waiting for the replies
   */
  @Override
  public void holdFenced(long op) throws InterruptedException {
    Set<UUID> holding = holdAckers.get(op);
    fence("the held write", holding != null ? holding : Set.of());
  }

  /** A FENCE round (see Fence); also fails unless every member of {@code mustConfirm} confirmed. */
  private void fence(String what, Set<UUID> mustConfirm) throws InterruptedException {
    checkOpen();
    long deadline = clock.getAsLong() + ackTimeoutNanos; // every reply is awaited until then
    Map<UUID, Member> members;
    Map<UUID, Future<Integer>> replies = new HashMap<>();
    try {
      members = otherMembers();
      checkMinimumMembers(members.size() + 1, what);
      for (Member m : members.values()) {
        replies.put(
            m.getUuid(),
            executor.submitToMember(
                new GroupTask(name, GroupTask.Kind.FENCE, self, ANY_EPOCH, 0, null), m));
      }
    } catch (GroupUnavailableException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new GroupUnavailableException(
          "guard group '" + name + "' on " + self + ": " + what + " cannot go on: " + e);
    }
    int view = members.size() + 1;
    int confirmed = 1; // this member
    int removedBy = 0;
    Set<UUID> confirmedBy = new java.util.HashSet<>();
    for (Map.Entry<UUID, Future<Integer>> reply : replies.entrySet()) {
      try {
        int r =
            reply.getValue().get(Math.max(0, deadline - clock.getAsLong()), TimeUnit.NANOSECONDS);
        if (r == GroupTask.ACK || r == GroupTask.NO_GUARD) {
          confirmed++;
          confirmedBy.add(reply.getKey());
        } else if (r == GroupTask.REMOVED) {
          removedBy++;
        }
      } catch (TimeoutException | ExecutionException | RuntimeException e) {
        // silent: no confirmation
      }
    }
    if (removedBy > 0 || confirmed < minimumMembers || !confirmedBy.containsAll(mustConfirm)) {
      throw new GroupUnavailableException(
          "guard group '"
              + name
              + "' on "
              + self
              + ": "
              + what
              + " cannot go on: "
              + (removedBy > 0
                  ? removedBy + " member(s) removed this member from their cluster view"
                  : !confirmedBy.containsAll(mustConfirm)
                      ? "a member that applied its hold did not confirm it (it may end the hold)"
                      : "only "
                          + confirmed
                          + " of "
                          + view
                          + " members confirmed it in time (minimumMembers "
                          + minimumMembers
                          + ")")
              + " (after a pause longer than Hazelcast's failure detection, or on the minority"
              + " side of a split). Nothing was made visible; retry the write once the cluster has"
              + " settled (this member rejoins or merges under a new member UUID)");
    }
  }

  /**
   * Sends the begin to {@code peer} at the epoch of its record (unless it was revoked and its
   * window is closed, or {@code member} is null: not in this member's view) and notes what to wait
   * for.
   */
  private void askPeer(
      UUID id,
      Peer peer,
      @Nullable Member member,
      LongFunction<GroupTask> taskAt,
      List<Sent> sent) {
    long peerEpoch;
    synchronized (peer) {
      if (peer.revoked) {
        if (!peer.granted || clock.getAsLong() - (peer.lastGrant + revocationWaitNanos) >= 0) {
          return; // its window at this epoch is closed: it cannot answer absent until it rejoins
        }
        sent.add(new Sent(id, peer, peer.epoch, null)); // still inside: wait it out
        return;
      }
      peerEpoch = peer.epoch;
    }
    Future<Integer> reply =
        member == null ? null : executor.submitToMember(taskAt.apply(peerEpoch), member);
    beginsSent.incrementAndGet();
    sent.add(new Sent(id, peer, peerEpoch, reply));
  }

  private boolean acknowledged(@Nullable Future<Integer> reply, long deadline)
      throws InterruptedException {
    if (reply == null) {
      return false;
    }
    try {
      int r = reply.get(Math.max(0, deadline - clock.getAsLong()), TimeUnit.NANOSECONDS);
      return r == GroupTask.ACK || r == GroupTask.NO_GUARD;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return false;
    }
  }

  private void revokeAndWait(Sent s, GroupTask.Kind kind) throws InterruptedException {
    long until;
    synchronized (s.peer()) {
      if (s.peer().epoch != s.epoch()) {
        return; // it JOINed at a newer epoch: it lapsed first, and its JOIN drains this enter
      }
      s.peer().revoked = true;
      if (!s.peer().granted) {
        return; // never granted at this epoch: it never answered absent at it
      }
      until = s.peer().lastGrant + revocationWaitNanos;
    }
    long left = until - clock.getAsLong();
    if (left > 0) {
      LOGGER.log(
          Level.DEBUG,
          () ->
              "guard group '"
                  + name
                  + "': no ack for "
                  + kind
                  + " from "
                  + s.member()
                  + "; waiting "
                  + TimeUnit.NANOSECONDS.toMillis(left)
                  + " ms until its lease has run out");
    }
    while ((until - clock.getAsLong()) > 0) {
      synchronized (s.peer()) {
        if (s.peer().epoch != s.epoch()) {
          return; // it JOINed at a newer epoch, so it lapsed (no lease at the old one); its JOIN
          // drains us
        }
      }
      TimeUnit.NANOSECONDS.sleep(
          Math.min(until - clock.getAsLong(), TimeUnit.MILLISECONDS.toNanos(2)));
    }
  }

  private record QueuedEnd(GroupTask.Kind kind, long op, CompletableFuture<Void> sent) {}

  /**
   * Queues the end of {@code op} and sends it now, or with the next batch if a batch of ends is on
   * its way (Nagle's rule: the first end goes at once, the ones made meanwhile wait for one round
   * trip, then go together). Why waiting is safe: engine rule 3 lets ends arrive late; a late
   * visible keeps the key in flight on the receiver, which its rebuilds keep; a late abort or
   * cancel keeps a fingerprint (a false positive); a late gone keeps one too, and is still applied
   * only if its announcement was (RemoteWrites). Ends of one key commute in the receiver's guard,
   * so their order inside or across batches does not matter. The writer's own JOIN drain does not
   * wait for them (entersInFlight is cleared at enterEnded).
   */
  private CompletionStage<Void> deliverEnd(GroupTask.Kind kind, long op) {
    if (closed) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> sent = new CompletableFuture<>();
    boolean send;
    synchronized (endsLock) {
      queuedEnds.add(new QueuedEnd(kind, op, sent));
      send = !endsSending;
      endsSending = true;
    }
    if (send) {
      sendEnds();
    }
    return sent;
  }

  /** Sends the queued ends, batch after batch, until none is left. */
  private void sendEnds() {
    while (true) {
      List<QueuedEnd> batch;
      synchronized (endsLock) {
        batch = queuedEnds;
        queuedEnds = new ArrayList<>();
        if (batch.isEmpty() || closed) {
          endsSending = false; // the next deliverEnd sends
        }
      }
      if (batch.isEmpty()) {
        return;
      }
      if (closed) {
        batch.forEach(e -> e.sent().complete(null));
        return;
      }
      CompletableFuture<Void> replies;
      try {
        replies = sendEndBatch(batch);
      } catch (RuntimeException e) { // a lost end: a false positive, never a false negative
        replies = CompletableFuture.completedFuture(null);
      }
      if (!replies.isDone()) {
        replies.whenComplete(
            (v, t) -> {
              batch.forEach(e -> e.sent().complete(null));
              sendEnds();
            });
        return;
      }
      batch.forEach(e -> e.sent().complete(null));
    }
  }

  private CompletableFuture<Void> sendEndBatch(List<QueuedEnd> batch) {
    long[] ops = new long[batch.size()];
    GroupTask.Kind[] ends = new GroupTask.Kind[batch.size()];
    for (int i = 0; i < ops.length; i++) {
      ops[i] = batch.get(i).op();
      ends[i] = batch.get(i).kind();
    }
    LongFunction<GroupTask> taskAt =
        ops.length == 1
            ? ep -> new GroupTask(name, ends[0], self, ep, ops[0], null)
            : ep -> new GroupTask(name, self, ep, ops, ends);
    Map<UUID, Member> members = otherMembers();
    List<CompletableFuture<Integer>> replies = new ArrayList<>();
    for (Map.Entry<UUID, Peer> e : peers.entrySet()) {
      Member member = members.get(e.getKey());
      long peerEpoch;
      synchronized (e.getValue()) {
        peerEpoch = e.getValue().epoch;
      }
      if (member != null) {
        replies.add(submitEnd(taskAt.apply(peerEpoch), member));
      }
    }
    for (Map.Entry<UUID, Member> e : members.entrySet()) {
      if (!peers.containsKey(e.getKey())) {
        replies.add(submitEnd(taskAt.apply(ANY_EPOCH), e.getValue()));
      }
    }
    endMessagesSent.addAndGet(replies.size());
    return CompletableFuture.allOf(replies.toArray(new CompletableFuture<?>[0]));
  }

  private CompletableFuture<Integer> submitEnd(GroupTask task, Member member) {
    CompletableFuture<Integer> f = new CompletableFuture<>();
    try {
      executor.submitToMember(
          task,
          member,
          new ExecutionCallback<Integer>() {
            @Override
            public void onResponse(Integer response) {
              f.complete(response);
            }

            @Override
            public void onFailure(Throwable t) {
              f.complete(GroupTask.NACK); // a lost end: a false positive, never a false negative
            }
          });
    } catch (RuntimeException ex) {
      f.complete(GroupTask.NACK);
    }
    return f;
  }

  private Map<UUID, Member> otherMembers() {
    Map<UUID, Member> members = new HashMap<>();
    for (Member m : hazelcast.getCluster().getMembers()) {
      if (!m.getUuid().equals(self)) {
        members.put(m.getUuid(), m);
      }
    }
    return members;
  }

  private void memberGone(UUID member) {
    removedMembers.add(member); // first: from now on its rounds, writes and fences are refused
    dumps.joinerGone(member); // a joiner killed mid-stream: its snapshots go with it
    Peer peer = peers.get(member);
    if (peer != null) {
      synchronized (peer) {
        peer.revoked = true; // writers now wait out its lease instead of asking it
      }
    }
    String origin = member.toString();
    remote.originLost(origin);
    // Its holds stay open until its release or until any fence it passed has been outlasted: see
    // the implementation notes (Lost holds).
    try {
      renewer.schedule(
          () -> remote.lostHoldsEnded(origin), revocationWaitNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException closedMeanwhile) {
      // closed: this member no longer answers "absent" at all
    }
  }

  /** Whether a message from {@code origin} may be applied here: REMOVED, NACK, or -1 (yes). */
  private int refusal(UUID origin) {
    if (removedMembers.contains(origin)) {
      return GroupTask.REMOVED;
    }
    for (Member m : hazelcast.getCluster().getMembers()) {
      if (m.getUuid().equals(origin)) {
        return -1;
      }
    }
    return GroupTask.NACK; // not in the list (yet): a member that is still joining retries
  }

  // ---- receiver and grantor ----

  int handle(GroupTask task) throws InterruptedException {
    switch (task.kind) {
      case JOIN:
      case RENEW:
      case BEGIN_ENTER:
      case BEGIN_ENTERS:
      case BEGIN_LEAVE:
      case HOLD_STALE:
      case FENCE:
        int refused = refusal(task.origin); // see Fence: no grant, no begin for a removed member
        if (refused >= 0) {
          return refused;
        }
        break;
      default:
        break; // ends and releases: applying them late is always safe
    }
    switch (task.kind) {
      case FENCE:
        return GroupTask.ACK;
      case JOIN:
        return grantJoin(task);
      case RENEW:
        return grantRenew(task);
      case RELEASE_HOLD: // at any epoch and window: see GroupHolds
        remote.holdEnded(
            task.origin.toString(),
            task.op,
            "member " + task.origin + " released its hold (its write of unknown keys completed)");
        return GroupTask.ACK;
      default:
        return apply(task);
    }
  }

  @SuppressWarnings("unchecked")
  private int apply(GroupTask task) {
    receiverLock.readLock().lock();
    try {
      if (closed) {
        return GroupTask.NACK;
      }
      String origin = task.origin.toString();
      if (isEnd(task.kind)) {
        return applyEnds(origin, task); // at any epoch: see applyEnds
      }
      if (task.epoch != epoch && task.epoch != ANY_EPOCH) {
        return GroupTask.NACK;
      }
      switch (task.kind) {
        case BEGIN_ENTERS:
          {
            if (clock.getAsLong() - acceptUntil >= 0) {
              return GroupTask
                  .NACK; // outside the window: the writer may already have waited us out
            }
            List<K> keys = (List<K>) Objects.requireNonNull(task.key, "keys");
            long[] ops = Objects.requireNonNull(task.ops, "ops");
            for (int i = 0; i < ops.length; i++) { // all of them before the ack
              remote.enterBegun(origin, ops[i], keys.get(i));
            }
            return GroupTask.ACK;
          }
        case BEGIN_ENTER:
        case BEGIN_LEAVE:
          if (clock.getAsLong() - acceptUntil >= 0) {
            return GroupTask.NACK; // outside the window: the writer may already have waited us out
          }
          K key = (K) Objects.requireNonNull(task.key, "key");
          if (task.kind == GroupTask.Kind.BEGIN_ENTER) {
            remote.enterBegun(origin, task.op, key);
          } else {
            remote.leaveBegun(origin, task.op, key);
          }
          return GroupTask.ACK;
        case HOLD_STALE:
          if (clock.getAsLong() - acceptUntil >= 0) {
            return GroupTask.NACK; // outside the window: the writer may already have waited us out
          }
          remote.holdBegun(origin, task.op);
          return GroupTask.ACK;
        default:
          throw new IllegalArgumentException("not a write: " + task);
      }
    } finally {
      receiverLock.readLock().unlock();
    }
  }

  private static boolean isEnd(GroupTask.Kind kind) {
    return switch (kind) {
      case END_BATCH, END_ENTER_VISIBLE, END_ENTER_ABORT, END_LEAVE_GONE, END_LEAVE_CANCEL -> true;
      default -> false;
    };
  }

  /**
   * Applies ends whatever this member's epoch and window (under the read lock). An enter begun here
   * at an earlier epoch is still open after a lapse (RemoteWrites.lapsed keeps it in flight), and
   * its end, sent at the epoch its writer knew, must still reach it, or it stays in flight for
   * good. Ending a begin applied here is always paired: visible comes after the key became visible
   * at the source, abort only for a key that never did; a leave was cancelled at the lapse, so a
   * late gone finds nothing and is dropped; operation numbers never repeat, so no end meets another
   * write's begin.
   */
  private int applyEnds(String origin, GroupTask task) {
    if (task.kind == GroupTask.Kind.END_BATCH) {
      long[] ops = Objects.requireNonNull(task.ops, "ops");
      GroupTask.Kind[] ends = Objects.requireNonNull(task.ends, "ends");
      for (int i = 0; i < ops.length; i++) {
        applyEnd(origin, ends[i], ops[i]);
      }
    } else {
      applyEnd(origin, task.kind, task.op);
    }
    return GroupTask.ACK;
  }

  /** Applies one end (under the read lock), whatever the epoch and window. */
  private void applyEnd(String origin, GroupTask.Kind kind, long op) {
    switch (kind) {
      case END_ENTER_VISIBLE -> remote.enterEnded(origin, op, true);
      case END_ENTER_ABORT -> remote.enterEnded(origin, op, false);
      case END_LEAVE_GONE -> remote.leaveEnded(origin, op, true);
      case END_LEAVE_CANCEL -> remote.leaveEnded(origin, op, false);
      default -> throw new IllegalArgumentException("not an end: " + kind);
    }
  }

  private int grantJoin(GroupTask task) throws InterruptedException {
    Peer peer = peers.computeIfAbsent(task.origin, u -> new Peer());
    synchronized (peer) {
      if (task.epoch < peer.epoch) {
        return GroupTask.NACK;
      }
      if (task.epoch > peer.epoch) {
        peer.epoch = task.epoch; // from here on this member's new writes need its ack at this epoch
        peer.revoked = false;
        peer.granted = false;
      } else if (peer.revoked) {
        return GroupTask.NACK;
      }
    }
    long drainSeq;
    synchronized (seqLock) {
      drainSeq = enterSeq;
    }
    long deadline = clock.getAsLong() + leaseNanos / 3;
    while (!drained(drainSeq)) {
      if (clock.getAsLong() - deadline >= 0) {
        return GroupTask.NACK; // an enter begun before the JOIN is still open; the joiner retries
      }
      TimeUnit.MILLISECONDS.sleep(1);
    }
    synchronized (peer) {
      if (peer.epoch != task.epoch || peer.revoked) {
        return GroupTask.NACK;
      }
      peer.granted = true;
      peer.lastGrant = clock.getAsLong();
      return GroupTask.ACK;
    }
  }

  private boolean drained(long drainSeq) {
    for (long seq : entersInFlight.values()) {
      if (seq <= drainSeq) {
        return false;
      }
    }
    return true;
  }

  /**
   * A renewal of a member that never JOINed here (it joined the group before this member did)
   * records it as a peer at its epoch, granted now, instead of refusing it: refused, every member
   * would lapse whenever a member joins, and none could serve the joiner a dump. Why that is safe
   * without a JOIN's drain: this member's writes so far reached it as a stranger (at whatever epoch
   * it is), applied there or, if not acknowledged, revoked it (the stranger path records it
   * revoked, so no renewal is granted after that write) and waited a full revocation wait after
   * that; from the record on, writes go to it at its epoch with the usual acknowledgement or
   * revocation wait, which reads this grant. A write under way when the record is made read the
   * member's record once, before (it asks it as a stranger) or after (it asks it at this epoch):
   * deliverBegin decides per member from that one read, so none is left unasked.
   */
  private int grantRenew(GroupTask task) {
    Peer peer = peers.get(task.origin);
    if (peer == null) {
      Peer stranger = new Peer();
      synchronized (stranger) {
        stranger.epoch = task.epoch;
        stranger.granted = true;
        stranger.lastGrant = clock.getAsLong();
      }
      Peer raced = peers.putIfAbsent(task.origin, stranger);
      if (raced == null) {
        return GroupTask.ACK;
      }
      peer = raced; // a JOIN or a revocation recorded it meanwhile: judge by that record
    }
    synchronized (peer) {
      if (peer.epoch != task.epoch || peer.revoked || !peer.granted) {
        return GroupTask.NACK;
      }
      peer.lastGrant = clock.getAsLong();
      return GroupTask.ACK;
    }
  }

  // ---- lease ----

  private enum Round {
    GRANTED,
    REFUSED,
    INCOMPLETE
  }

  private void renewSafely() {
    try {
      renew();
    } catch (Throwable t) {
      LOGGER.log(Level.WARNING, "guard group '" + name + "': lease renewal failed", t);
    }
  }

  private void renew() throws InterruptedException {
    if (closed || renewalsPaused) {
      return;
    }
    long t0 = clock.getAsLong();
    boolean join;
    long ep;
    receiverLock.writeLock().lock();
    try {
      if (!joining && t0 - leaseUntil >= 0) {
        lapseLocked("the lease ran out");
      }
      join = joining;
      ep = epoch;
      if (join) {
        acceptUntil = t0 + leaseNanos; // provisional: whoever grants this round grants after t0
      }
    } finally {
      receiverLock.writeLock().unlock();
    }
    // A JOIN round allows for the grantors' drain (at most lease / 3 each, in parallel).
    Round round =
        roundTrip(
            join ? GroupTask.Kind.JOIN : GroupTask.Kind.RENEW,
            ep,
            t0 + (join ? leaseNanos / 2 : leaseNanos / 3));
    boolean sync = false;
    receiverLock.writeLock().lock();
    try {
      if (ep != epoch || closed) {
        return;
      }
      if (round == Round.REFUSED) {
        lapseLocked(join ? "a member refused the join" : "a member refused the renewal");
        return;
      }
      if (round == Round.INCOMPLETE) {
        return; // no new lease; the current one runs out by itself
      }
      if (!join && clock.getAsLong() - leaseUntil >= 0) {
        lapseLocked("the lease ran out during the renewal");
        return;
      }
      acceptUntil = t0 + leaseNanos;
      leaseUntil = t0 + leaseNanos;
      if (complete) {
        absentUntil = leaseUntil; // a renewal at an epoch whose filter is complete
      }
      if (join) {
        joining = false;
        sync = true;
      }
    } finally {
      receiverLock.writeLock().unlock();
    }
    if (sync) {
      synchronize(ep);
    }
  }

  /**
   * Rebuilds, from a peer's dump (see {@link PeerDumpJoin}) or else the KeySource: started after
   * every member granted the JOIN round of {@code ep}, so the rebuild is installed after this
   * member is subscribed, and a peer snapshots only after the install.
   */
  private void synchronize(long ep) {
    List<Member> others = peerDump ? List.copyOf(otherMembers().values()) : List.of();
    (others.isEmpty()
            ? local.rebuild()
            : local.rebuildFrom(
                new PeerDumpJoin<K>(
                    name,
                    self,
                    executor,
                    () -> List.copyOf(otherMembers().values()),
                    dumpPieceBytes,
                    DUMP_REQUEST_TIMEOUT_NANOS,
                    2 * leaseNanos,
                    peerDumpsLoaded::incrementAndGet,
                    dumpPieceListener)))
        .whenComplete(
            (ok, failure) -> {
              receiverLock.writeLock().lock();
              try {
                if (failure == null && ep == epoch && !closed) {
                  complete = true;
                  absentUntil =
                      leaseUntil; // no lapse since the JOIN (same epoch): a lease of this epoch
                } else if (failure != null && ep == epoch) {
                  lapseLocked("the rebuild after joining failed: " + failure);
                }
              } finally {
                receiverLock.writeLock().unlock();
              }
            });
  }

  /**
   * A snapshot of the local filter for a joining member, or null unless this member may answer
   * "absent" from it: under the receiver lock (no lapse, no change of epoch or of {@code complete}
   * meanwhile), complete and leased before the copy, and still leased after it. So at the copy's
   * instant the filter held every key visible at the source: a key made visible without this
   * member's acknowledgement was made visible only after its lease had run out, and it is still
   * running after the copy.
   */
  private @Nullable CuckooFilter<K> snapshotForPeer() {
    receiverLock.readLock().lock();
    try {
      if (closed || !complete || !mayAnswerAbsent()) {
        return null;
      }
      CuckooFilter<K> copy = local.snapshot();
      return copy != null && mayAnswerAbsent() ? copy : null;
    } finally {
      receiverLock.readLock().unlock();
    }
  }

  /** The serving side of the peer-dump join. */
  DumpServer<K> dumps() {
    return dumps;
  }

  /** Joins (and rejoins) whose filter a peer's dump supplied. */
  long peerDumpsLoaded() {
    return peerDumpsLoaded.get();
  }

  private void lapseLocked(String why) {
    absentUntil =
        clock.getAsLong(); // past for every reader that reads it (it reads the clock after)
    complete = false;
    epoch = EPOCHS.incrementAndGet();
    joining = true;
    long now = clock.getAsLong();
    acceptUntil = now;
    leaseUntil = now;
    lapses.incrementAndGet();
    LOGGER.log(
        Level.INFO,
        () ->
            "guard group '"
                + name
                + "' on "
                + self
                + ": "
                + why
                + "; passing through until it has rejoined and rebuilt");
    // No begin of the old epoch is applied after this (apply checks the epoch under the read
    // lock), so no late begin races this. Open remote enters stay in flight (RemoteWrites.lapsed):
    // a writer that had this member's ack may make its key visible only after this member has
    // rejoined and rebuilt (a writer paused between its ack and its commit, whose member the
    // others removed meanwhile, so that the JOIN did not wait for it); ending its enter here would
    // let that rebuild drop the key.
    remote.lapsed();
  }

  private Round roundTrip(GroupTask.Kind kind, long ep, long deadline) throws InterruptedException {
    List<Future<Integer>> replies = new ArrayList<>();
    Map<UUID, Member> members = otherMembers();
    for (Member m : members.values()) {
      replies.add(executor.submitToMember(new GroupTask(name, kind, self, ep, 0, null), m));
    }
    // Below minimumMembers no round grants a lease (it may be a minority side of a split).
    Round result = members.size() + 1 < minimumMembers ? Round.INCOMPLETE : Round.GRANTED;
    for (Future<Integer> reply : replies) {
      try {
        int r = reply.get(Math.max(0, deadline - clock.getAsLong()), TimeUnit.NANOSECONDS);
        if (r == GroupTask.NACK || r == GroupTask.REMOVED) {
          result = Round.REFUSED;
        }
      } catch (TimeoutException | ExecutionException | RuntimeException e) {
        if (result == Round.GRANTED) {
          result = Round.INCOMPLETE;
        }
      }
    }
    return result;
  }

  private void checkOpen() {
    if (closed) {
      throw new GroupUnavailableException("guard group '" + name + "' is closed");
    }
  }

  /**
   * Leaves the group: this member stops answering "absent" and stops receiving; other members wait
   * out its lease.
   */
  @Override
  public void close() {
    receiverLock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      absentUntil = clock.getAsLong();
      complete = false;
    } finally {
      receiverLock.writeLock().unlock();
    }
    renewer.shutdownNow();
    dumps.clear();
    registry(hazelcast).remove(name, this);
    try {
      hazelcast.getCluster().removeMembershipListener(membershipRegistration);
      hazelcast.getLifecycleService().removeLifecycleListener(lifecycleRegistration);
    } catch (RuntimeException e) {
      // the member is shutting down
    }
    remote.lapsed(); // a closed member answers nothing; the local guard keeps the open enters
  }

  @Override
  public String toString() {
    return "HazelcastGuardGroup["
        + name
        + " on "
        + self
        + ", epoch "
        + epoch
        + (mayAnswerAbsent() ? ", leased]" : ", passing through]");
  }

  /**
   * Builds a {@link HazelcastGuardGroup}. Each setter checks its value and may be called once.
   *
   * @param <K> the key type
   */
  public static final class Builder<K> {
    private final HazelcastInstance hazelcast;
    private final CuckooGuard<K> guard;
    private @Nullable String name;
    private Duration lease = Duration.ofMillis(DEFAULT_LEASE_MILLIS);
    private boolean leaseSet;
    private @Nullable Duration ackTimeoutOrNull;
    private Duration ackTimeout = Duration.ofMillis(DEFAULT_LEASE_MILLIS / 2);
    private double maxClockDrift = DEFAULT_MAX_CLOCK_DRIFT;
    private boolean driftSet;
    private String executorName = "cuckoo-guard";
    private int minimumMembers = 1;
    private boolean minimumMembersSet;
    private LongSupplier clock = System::nanoTime;
    private boolean peerDump = true;
    private boolean peerDumpSet;
    private boolean writesMayRunTwice;
    private boolean writesMayRunTwiceSet;
    private int dumpPieceBytes = DEFAULT_DUMP_PIECE_BYTES;
    private PeerDumpJoin.PieceListener dumpPieceListener = PeerDumpJoin.PieceListener.NONE;

    private Builder(HazelcastInstance hazelcast, CuckooGuard<K> guard) {
      this.hazelcast = hazelcast;
      this.guard = guard;
    }

    /** The group name, the same on every member (default: the guard's name). */
    public Builder<K> name(String name) {
      if (this.name != null) {
        throw new IllegalStateException("name was already set to " + this.name);
      }
      if (Objects.requireNonNull(name, "name").isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    /**
     * How long a member may answer "absent" after the start of its last granted renewal (default
     * {@value #DEFAULT_LEASE_MILLIS} ms); renewed every third of it. A writer waits at most about
     * ack timeout + lease × (1 + 2 drift) for a member that does not answer.
     */
    public Builder<K> lease(Duration lease) {
      if (leaseSet) {
        throw new IllegalStateException("lease was already set to " + this.lease);
      }
      if (Objects.requireNonNull(lease, "lease").toMillis() < MIN_LEASE_MILLIS) {
        throw new IllegalArgumentException(
            "lease (" + lease + ") must be at least " + MIN_LEASE_MILLIS + " ms");
      }
      this.lease = lease;
      this.leaseSet = true;
      return this;
    }

    /**
     * How long a writer waits for an acknowledgement before it waits out the member's lease
     * (default: lease / 2).
     */
    public Builder<K> ackTimeout(Duration ackTimeout) {
      if (ackTimeoutOrNull != null) {
        throw new IllegalStateException("ackTimeout was already set to " + ackTimeoutOrNull);
      }
      if (Objects.requireNonNull(ackTimeout, "ackTimeout").isNegative() || ackTimeout.isZero()) {
        throw new IllegalArgumentException("ackTimeout (" + ackTimeout + ") must be positive");
      }
      this.ackTimeoutOrNull = ackTimeout;
      return this;
    }

    /**
     * Bound on the rate difference of two members' monotonic clocks (default {@value
     * #DEFAULT_MAX_CLOCK_DRIFT}).
     */
    public Builder<K> maxClockDrift(double drift) {
      if (driftSet) {
        throw new IllegalStateException("maxClockDrift was already set to " + maxClockDrift);
      }
      if (!(drift >= 0 && drift < 0.5)) {
        throw new IllegalArgumentException("maxClockDrift (" + drift + ") must be in [0, 0.5)");
      }
      this.maxClockDrift = drift;
      this.driftSet = true;
      return this;
    }

    /**
     * Whether this member, when it joins or rejoins, loads its filter from another member's
     * snapshot, streamed over the cluster while the writes made meanwhile are kept and applied
     * (default true); it scans its own KeySource if no member can serve one. False: it always
     * scans. Either way it serves snapshots to joining members while it may answer "absent".
     */
    public Builder<K> peerDump(boolean peerDump) {
      if (peerDumpSet) {
        throw new IllegalStateException("peerDump was already set to " + this.peerDump);
      }
      this.peerDump = peerDump;
      this.peerDumpSet = true;
      return this;
    }

    /**
     * Whether the source may apply one write twice (default false): true for a Hazelcast cache or
     * map as the source, whose operations Hazelcast re-invokes on the new owner when the owner left
     * before the caller had every acknowledgement. Then a leave of a key during which an enter of
     * the key was open on the leaving member is cancelled on every member instead of gone ({@link
     * io.github.cuckooguard.spi.OpenEnters} says why): a removal between the write's two runs must
     * not take the copy the second run needs. The price is a spare fingerprint (a false positive
     * until the next rebuild) for every removal that overlaps a write of its key.
     */
    public Builder<K> writesMayRunTwice(boolean writesMayRunTwice) {
      if (writesMayRunTwiceSet) {
        throw new IllegalStateException(
            "writesMayRunTwice was already set to " + this.writesMayRunTwice);
      }
      this.writesMayRunTwice = writesMayRunTwice;
      this.writesMayRunTwiceSet = true;
      return this;
    }

    /** Test hook: bytes per message when streaming a dump (default 1 MiB). */
    Builder<K> dumpPieceBytes(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("dumpPieceBytes (" + bytes + ") must be positive");
      }
      this.dumpPieceBytes = bytes;
      return this;
    }

    /** Test hook: told of every dump piece this member receives when it joins from a peer. */
    Builder<K> dumpPieceListener(PeerDumpJoin.PieceListener listener) {
      this.dumpPieceListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The fewest members (this one included) a member must see in its Hazelcast cluster to answer
     * "definitely absent" or to write (default 1: no protection). Set it to a majority of the
     * cluster's size (2 of 3, 3 of 5) to close the split brain: a member cut off with fewer members
     * (on the minority side of a partition, or alone after a pause longer than Hazelcast's failure
     * detection) then passes through and its writes fail with {@link
     * io.github.cuckooguard.spi.GroupUnavailableException}, instead of granting itself leases. The
     * price: while fewer members are up (one of two, two of five), no member writes. The default is
     * 1 because the group cannot know the cluster's intended size, and any larger default would
     * make a single-member cluster (tests, development, the last instance of a rolling restart)
     * fail every write.
     *
     * @throws IllegalArgumentException if {@code minimumMembers} is not in [{@value
     *     #MIN_MINIMUM_MEMBERS}, {@value #MAX_MINIMUM_MEMBERS}]
     */
    public Builder<K> minimumMembers(int minimumMembers) {
      if (minimumMembersSet) {
        throw new IllegalStateException("minimumMembers was already set to " + this.minimumMembers);
      }
      if (minimumMembers < MIN_MINIMUM_MEMBERS || minimumMembers > MAX_MINIMUM_MEMBERS) {
        throw new IllegalArgumentException(
            "minimumMembers ("
                + minimumMembers
                + ") must be in ["
                + MIN_MINIMUM_MEMBERS
                + ", "
                + MAX_MINIMUM_MEMBERS
                + "]");
      }
      this.minimumMembers = minimumMembers;
      this.minimumMembersSet = true;
      return this;
    }

    /** Test hook: the monotonic clock of this member (default {@code System::nanoTime}). */
    Builder<K> clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Joins the group: this member passes through until it has a lease and a rebuilt filter. */
    public HazelcastGuardGroup<K> join() {
      ackTimeout = ackTimeoutOrNull != null ? ackTimeoutOrNull : lease.dividedBy(2);
      return new HazelcastGuardGroup<>(this);
    }
  }
}
