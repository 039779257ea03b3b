package io.github.cuckooguard.jcache.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import io.github.cuckooguard.spi.GroupEngine;
import io.github.cuckooguard.spi.GroupUnavailableException;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javax.cache.Cache;
import javax.cache.CacheException;
import org.jspecify.annotations.Nullable;

/**
 * The guard of one guarded cache, and the adapter's half of the core's write protocol.
 *
 * <pre>
 * a call through the guarded cache that     enter = guard.beginEnter(k)          before the provider call
 *   may create k's entry (put, putAll,       provider call
 *   getAndPut, putIfAbsent, invoke,          a Created event of k ran meanwhile ? enter.visible()
 *   invokeAll, read-through loads)                                              : enter.abort()
 *                                            (threw, or loadAll: enter.visible() in any case)
 * a Created event with no such call open    guard.keyEntered(k)   (other processes, late events)
 * Caffeine's provider, caches created by     every Created/Removed/Expired event in the provider's own
 *   the guarded manager                      atomic write: created(k) / guard.keyLeft(k); key source:
 *                                            Caffeine's map, expired entries included
 *                                            ({@link CaffeineRemovals} has the argument)
 * Ehcache heap-only caches created by the   CREATED in the store's event filter (inside its compute):
 *   guarded manager                          created(k); REMOVED/EXPIRED/EVICTED there: beginLeave,
 *                                            gone() from the store listener, which fires for
 *                                            operations that succeeded ({@link EhcacheRemovals})
 * remove, remove(k, v), getAndRemove,       leave = guard.beginLeave(k)          before the provider call
 *   on another provider that reports         provider call; removed ? leave.gone() : leave.cancel()
 *   events before return (the RI; Caffeine
 *   caches wrapped with wrapExisting)
 *   removeAll(keys) key by key, invoke       the same, ended by each key's own result; invoke runs
 *   (there, and in a group)                  in an {@link ExistenceProbe} (exists before/after)
 * a Hazelcast member's cache in a guard     enter = group.beginEnter(k) before the call: returns
 *   group ({@link #joinedGroup})             once every member applied it (or cannot answer
 *                                            absent); ends visible if the call created the entry,
 *                                            cannot say, or a member left during it (Hazelcast
 *                                            may have run it twice), aborted if it says it did
 *                                            not; leave =
 *                                            group.beginLeave(k) before a removal, gone() only if
 *                                            the call removed the entry; no listener; expiry and
 *                                            eviction leave by {@link Compaction} (a rebuild)
 * any other removal (expiry, eviction,      nothing: the fingerprint stays until the next rebuild
 *   clear, other processes, Hazelcast        (removeAll() and clear() make the guard rebuild)
 *   outside a group)
 * Hazelcast outside a group (asynchronous   enter = guard.beginEnter(k) before the call; after it
 *   listener)                                visible if the key is in the cache, else abort
 * key source                                the provider's own keys where known ({@link NativeKeys}:
 *                                            Ehcache's store, Hazelcast's partitions), else every key
 *                                            the cache's iterator returns
 * </pre>
 *
 * <p><b>Why no present key is reported absent.</b>
 *
 * <ol>
 *   <li>A call through the guarded cache begins its key's enter before the provider call, so before
 *       the entry can become visible; while the enter is in flight the guard keeps its fingerprint
 *       in the current filter and in any filter a rebuild builds meanwhile (the core's proof,
 *       {@code RebuildState}). After the call returned the enter ends visible if a Created event of
 *       the key ran during the call ({@link CreatedEvents}): this call, or one racing it, created
 *       the entry. It is aborted only if no Created event ran during the call, which on a provider
 *       that runs synchronous listeners before the call returns (the JSR-107 contract; Caffeine's
 *       provider awaits them in every write) means that the call created nothing: the key, if
 *       present, was present before and holds the enter of the call that created it. The event
 *       itself never enters a key that a call of this cache is writing: Caffeine publishes it
 *       inside its compute, so it may run before the entry is visible, where an enter without a
 *       handle could be missed by a rebuild's scan. A call that threw ends visible (it may have
 *       written before it failed, and Caffeine does not await the events of a failed call), and so
 *       does {@code loadAll}, whose completion Caffeine reports before its events ran: a spare
 *       copy, a false positive until the next rebuild, if nothing was created.
 *   <li>A Created event while no call of the key is open enters the key directly. That is correct
 *       with a plain scan when the event runs after the entry became visible (the events of other
 *       Hazelcast members; Ehcache's late events): a scan that starts later sees the key, a rebuild
 *       already running receives the enter. A write from this process that bypasses the guarded
 *       cache is not covered: on Caffeine its event may run before its entry is visible.
 *   <li>A provider that may return before its synchronous listeners ran (Ehcache 3 under concurrent
 *       writes; any provider not known to keep the contract) gets a check instead of the abort: if
 *       the guard did not know the key before the call and the call left it in the cache, the
 *       write's enter ends visible (its late event enters it again: a spare copy); an abort
 *       followed by a fresh enter would leave the key absent from the guard in between. If it knew
 *       the key before but not after the abort (a rebuild swap dropped that copy during the call),
 *       the key is entered at once. What remains is a key the guard answered "might contain" for
 *       only through a colliding fingerprint: between the abort and its late event it is absent
 *       from the guard. That window is why removals are followed only on providers that keep the
 *       contract: a leave applied in it would take the colliding key's copy.
 * </ol>
 *
 * <p><b>Why the removals it follows are paired</b> (Caffeine's provider and the reference
 * implementation, where every creation is made in this process and reports its event before the
 * creating call returns, {@link DelegateProviders#eventsBeforeReturn}). A leave is announced before
 * the provider removes the entry and completed only after the call reported that it removed it; the
 * guard keeps the key tracked in between, also across a rebuild swap. The entry it removed had an
 * enter from before it became visible (1), or from its event (2), so {@code gone()} takes a copy
 * that the removed key owned. If the removal races the creating call, it takes the copy of that
 * call's enter while the enter is still in flight; the enter then ends visible with its copy taken,
 * for an entry that is gone: no copy for no key.
 *
 * <p><b>In a guard group</b> the same arguments hold on every member, through the group's engine
 * rule 1 ({@link GroupEngine}): an enter or leave announcement is applied on every member that can
 * still answer "absent" before the provider call. An enter is aborted only when the call itself
 * says that it created nothing and no member left the cluster during the call (a call whose target
 * left may have been run twice, and its result then describes the second run: {@link
 * #endWrite(Write, boolean, BooleanSupplier)}), so every visible entry keeps the copy of the enter
 * that made it visible, and a removal that the call reports takes exactly that copy (a racing
 * write's presence check is never used: it could abort a copy a removal had already taken).
 *
 * <p>A failure of the guard (a funnel that throws) never fails the cache call: the guard is marked
 * stale (pass-through until a rebuild succeeds), again once the call made its key visible, and the
 * failure is logged. In a group it does fail the call ({@code CacheException}, nothing written):
 * another member could still answer "absent" for the key.
 *
 * <p>Thread safety: all methods may be called concurrently; each {@link Write} is used by one call.
 *
 * @param <K> the key type
 */
public final class CacheGuard<K> {

  private static final Logger LOGGER = System.getLogger(CacheGuard.class.getName());

  private final CuckooGuard<K> guard;

  /** Set once before the cache is handed out ({@link #followRemovals}); read by every write. */
  private volatile boolean eventsBeforeReturn;

  private final CreatedEvents<K> events = new CreatedEvents<>();
  private volatile @Nullable Iterable<? extends Cache.@Nullable Entry<K, ?>> source;

  /** A key source of the provider's own (Caffeine's map), set with {@link #followRemovals}. */
  private volatile @Nullable Consumer<Consumer<? super K>> ownScan;

  /** Whether every removal reaches {@link #left} inside the provider's atomic removal. */
  private volatile boolean followsRemovals;

  /** Whether a put asks for the key first ({@link #expireBeforePut}). */
  private volatile boolean expireBeforePut;

  /** Whether Created events arrive after the writes return ({@link #asynchronousEvents}). */
  private volatile boolean asynchronousEvents;

  /**
   * The guard group this guard joined ({@link #joinedGroup}: a Hazelcast member's cache), or null.
   * Set once before the cache is handed out.
   */
  private volatile @Nullable ReplicatedGuard<K> group;

  private volatile @Nullable GroupEngine<K> engine;
  private volatile @Nullable AutoCloseable groupCloser;

  /**
   * In a group: a number that changes whenever a member leaves the cluster (Hazelcast's member list
   * version), read before and after a write's provider call ({@link #endWrite(Write, boolean,
   * BooleanSupplier)}); null outside a group.
   */
  private volatile @Nullable LongSupplier membership;

  /** Deregisters a listener registered outside JCache ({@link #onClose}). */
  private volatile @Nullable Runnable closer;

  /**
   * Held by every scan and by {@link #close}: once close returns, no scan of this guard reads the
   * provider again. A scan that outlived its cache could otherwise reach a new cache of the same
   * name (Hazelcast addresses caches by name), and Hazelcast's key fetch creates a partition's
   * record store, which never counts statistics if the new cache's statistics were still off.
   */
  private final Object scanGate = new Object();

  /** Set under {@link #scanGate} by {@link #close}; a scan after it fails. */
  private boolean closed;

  /**
   * A guard built by {@code builder}, with a scan of the attached cache as key source.
   *
   * @param eventsBeforeReturn whether the provider makes every creation in this process and runs
   *     synchronous listeners before the creating call returns ({@link DelegateProviders})
   */
  public CacheGuard(CuckooGuard.Builder<K> builder, boolean eventsBeforeReturn) {
    this.guard = builder.keySource(this::scan).build();
    this.eventsBeforeReturn = eventsBeforeReturn;
  }

  /** The guard; for lookups, statistics, rebuilds and pass-through. */
  public CuckooGuard<K> guard() {
    return guard;
  }

  /** Sets the cache the key source scans; called once the cache exists. */
  public void attach(Iterable<? extends Cache.@Nullable Entry<K, ?>> cache) {
    this.source = cache;
  }

  /**
   * The provider reports every creation and removal inside its atomic change (Caffeine: {@link
   * #left}; Ehcache: an announced leave, {@link EhcacheRemovals}), so before the creating call
   * returns, and {@code scan} emits every key it holds, expired ones not yet removed included
   * ({@link CaffeineRemovals}, {@link EhcacheRemovals} have the arguments); removals through the
   * guarded cache then announce no leave of their own. Call before the cache is handed out.
   */
  void followRemovals(Consumer<Consumer<? super K>> scan) {
    this.ownScan = scan;
    this.eventsBeforeReturn = true;
    this.followsRemovals = true;
  }

  /**
   * The provider drops an expired mapping silently when a put replaces it (Ehcache's {@code
   * OnHeapStore}), which would leave the expired entry's copy behind: a put through the guarded
   * cache asks for the key first, which expires such a mapping with its event. Call before the
   * cache is handed out.
   */
  void expireBeforePut() {
    this.expireBeforePut = true;
  }

  /** Whether a put should ask for its key first ({@link #expireBeforePut}). */
  boolean expiresBeforePut() {
    return expireBeforePut;
  }

  /**
   * Makes {@code scan}, a reader of the provider's own storage that is no JCache access ({@link
   * NativeKeys}), the key source instead of the cache's iterator.
   */
  public void nativeKeys(Consumer<Consumer<? super K>> scan) {
    if (!followsRemovals) {
      this.ownScan = scan;
    }
  }

  /**
   * The guard's listener is registered asynchronously (Hazelcast, whose synchronous listeners can
   * leave a write waiting for a completion that never comes): no Created event can be expected
   * before a write returns, so a write through the guarded cache ends visible whenever the key is
   * in the cache after it. Call before the cache is handed out.
   */
  public void asynchronousEvents() {
    this.asynchronousEvents = true;
  }

  /**
   * This guard joined a guard group ({@code engine}, e.g. the Hazelcast one; {@code replicated} its
   * writer's view of this guard): from now on every write through the guarded cache begins its
   * enter on every member before the provider call and waits for the group ({@link
   * ReplicatedGuard#beginEnter}), every removal through it announces its leave on every member
   * before the provider call ({@link ReplicatedGuard#beginLeave}), and lookups answer "absent" only
   * while the engine says this member may ({@link GroupEngine#mayAnswerAbsent}). No listener is
   * needed: the writes of the other members arrive as the group's messages, before they are
   * visible. {@code closer} leaves the group at {@link #close}. {@code membership} changes whenever
   * a member leaves the cluster, at the latest before the provider re-invokes an operation whose
   * target left (see {@link #endWrite(Write, boolean, BooleanSupplier)}). Call once, before the
   * cache is handed out and after {@link #attach} (the group's join rebuilds from the key source).
   */
  public void joinedGroup(
      ReplicatedGuard<K> replicated,
      GroupEngine<K> engine,
      AutoCloseable closer,
      LongSupplier membership) {
    this.engine = engine;
    this.groupCloser = closer;
    this.membership = membership;
    this.group = replicated;
  }

  /** Whether this guard is part of a guard group ({@link #joinedGroup}). */
  public boolean inGroup() {
    return group != null;
  }

  /**
   * Whether a removal through the guarded cache must announce its own leave: in a group, and on a
   * provider whose creations all report their events before returning while its removals are not
   * followed from its own events. Where this is true the wrapper follows the removals it makes
   * itself (one key at a time, with the call's own result), see {@link #announceLeave}.
   */
  public boolean callsFollowLeaves() {
    return group != null || (eventsBeforeReturn && !followsRemovals);
  }

  /** Every key "might be present": the guard is stale, or its group gave it no lease now. */
  public boolean isPassThrough() {
    GroupEngine<K> e = engine;
    return guard.isPassThrough() || (e != null && !e.mayAnswerAbsent());
  }

  /** Runs {@code closer} when the guarded cache is closed. */
  public void onClose(Runnable closer) {
    this.closer = closer;
  }

  /**
   * The guarded cache is being closed or destroyed: waits for a scan in progress, makes every later
   * scan fail (the guard then stays in pass-through, it never completes a rebuild with no keys),
   * and releases what {@link #onClose} registered. Call before the provider closes the cache.
   */
  public void close() {
    synchronized (scanGate) {
      closed = true;
    }
    AutoCloseable leaving = groupCloser;
    groupCloser = null;
    if (leaving != null) {
      try {
        leaving.close(); // this member stops answering "absent"; the others wait out its lease
      } catch (Exception e) {
        LOGGER.log(Level.DEBUG, "Cuckoo guard '" + guard.name() + "': leaving its group failed", e);
      }
    }
    Runnable own = closer;
    closer = null;
    if (own != null) {
      try {
        own.run();
      } catch (RuntimeException e) {
        LOGGER.log(
            Level.DEBUG, "Cuckoo guard '" + guard.name() + "': releasing its listener failed", e);
      }
    }
  }

  /** Whether removals are followed ({@link #followRemovals}). */
  public boolean followsRemovals() {
    return followsRemovals;
  }

  /**
   * False only if {@code key} is definitely not in the cache; in a group also only while this
   * member holds a lease and a complete filter.
   */
  public boolean mightContain(K key) {
    ReplicatedGuard<K> g = group;
    return g != null ? g.mightContain(key) : guard.mightContain(key);
  }

  /** The cache said {@code key} is absent after {@link #mightContain} said it might be there. */
  public void absentAfterMaybe(K key) {
    guard.reportFalsePositive(key);
  }

  // ---- enters ----

  /**
   * A Created event for {@code key}: an open write of the key ends visible, else the event enters
   * it.
   */
  void created(K key) {
    if (!events.created(key)) {
      guard.keyEntered(key);
    }
  }

  /**
   * Begins a call that may create {@code key}'s entry: call before the provider call, and end it
   * with {@link #endWrite} or {@link #keepWrite}.
   */
  public Write<K> beginWrite(K key) {
    ReplicatedGuard<K> g = group;
    if (g != null) {
      long members = membershipNow(); // before the enter, so before the provider call
      return new Write<>(key, members, null, true, enterGroup(g, key));
    }
    long token = events.open(key);
    PendingEnter<K> enter = null;
    boolean knownBefore = true;
    try {
      // Asked only where endWrite may need it, and before the enter adds this call's copy.
      knownBefore = eventsBeforeReturn || asynchronousEvents || guard.mightContain(key);
      enter = guard.beginEnter(key);
    } catch (RuntimeException e) {
      failed("entering a write", e);
    }
    return new Write<>(key, token, enter, knownBefore, null);
  }

  /**
   * Begins writes of every one of {@code keys}; in a group with one round trip for all of them
   * ({@link ReplicatedGuard#replicate}), returning only when each key is in flight on every member
   * that can still answer "absent".
   */
  public List<Write<K>> beginWrites(Collection<? extends K> keys) {
    List<Write<K>> writes = new ArrayList<>(keys.size());
    ReplicatedGuard<K> g = group;
    if (g == null || keys.size() == 1) {
      for (K key : keys) {
        writes.add(beginWrite(key));
      }
      return writes;
    }
    long members = membershipNow(); // before the enters, so before the provider call
    List<PendingEnter<K>> begun = new ArrayList<>(keys.size());
    try {
      for (K key : keys) {
        begun.add(g.local().beginEnter(key));
      }
    } catch (RuntimeException e) {
      begun.forEach(PendingEnter::abort);
      throw new CacheException(
          "Cuckoo guard '" + guard.name() + "' could not enter the keys of a write: " + e, e);
    }
    List<ReplicatedGuard.Enter<K>> enters;
    try {
      enters = g.replicate(begun); // aborts every local enter if it throws
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw groupFailed("interrupted", e);
    } catch (GroupUnavailableException e) {
      throw groupFailed(String.valueOf(e.getMessage()), e);
    }
    for (ReplicatedGuard.Enter<K> enter : enters) {
      writes.add(new Write<>(enter.key(), members, null, true, enter));
    }
    return writes;
  }

  /**
   * Begins {@code key}'s enter on every member; the write must not go on if this throws (another
   * member might still answer "absent" for the key).
   */
  private ReplicatedGuard.Enter<K> enterGroup(ReplicatedGuard<K> g, K key) {
    try {
      return g.beginEnter(key);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw groupFailed("interrupted", e);
    } catch (GroupUnavailableException e) {
      throw groupFailed(String.valueOf(e.getMessage()), e);
    } catch (RuntimeException e) {
      throw groupFailed(e.toString(), e);
    }
  }

  private CacheException groupFailed(String why, Exception cause) {
    return new CacheException(
        "Cuckoo guard '"
            + guard.name()
            + "': the guard group could not take the write in time ("
            + why
            + "); the cache was not changed",
        cause);
  }

  /**
   * Ends a write whose call said whether it created the entry ({@code putIfAbsent}, {@code
   * getAndPut}, an entry processor's existence before and after): in a group the enter ends visible
   * when it did, and is aborted when it did not (the key, if present, was present before and holds
   * the enter of the call that created it), unless a member left the cluster during the call: then
   * it ends visible too. Elsewhere as {@link #endWrite}.
   *
   * <p>Why a member's leaving keeps the enter. When the partition owner a write was sent to leaves
   * before the writer had its response and its backups' acknowledgements, Hazelcast runs the
   * operation again on the new owner (its invocations are retried on {@code MemberLeftException},
   * and a response whose backups did not all come from a target that left is discarded). The first
   * run may have been applied and backed up, so the second finds the entry its first run created
   * and reports "was there" ({@code putIfAbsent} false, {@code getAndPut} its own value, an entry
   * processor an existing entry): the call's result no longer says whether it created the entry,
   * and an abort would take the only copy of a key that is now in the cache (the test
   * RetriedWriteAfterOwnerCrashTest has it). Hazelcast re-invokes only after the target left this
   * member's member list, which changes {@link #membership} first; the number is read before the
   * enter began, so a write whose result may come from a second run always sees it changed and
   * keeps its copy (a spare one, a false positive until a rebuild, if the call really created
   * nothing).
   */
  public void endWrite(Write<K> write, boolean created, BooleanSupplier present) {
    ReplicatedGuard.Enter<K> replicated = write.replicated;
    if (replicated == null) {
      endWrite(write, present);
      return;
    }
    if (created || membershipNow() != write.token) {
      replicated.visible();
    } else {
      replicated.abort();
    }
  }

  /** {@link #membership} now, or 0 if there is none. */
  private long membershipNow() {
    LongSupplier m = membership;
    return m != null ? m.getAsLong() : 0;
  }

  /**
   * Ends a write after the provider call returned: visible if a Created event for the key ran
   * during it, else aborted (the call replaced, read or failed to write), with the check for a
   * provider that may not have run the event yet.
   *
   * @param present whether the call left the key in the cache; asked only for a provider that may
   *     return before its Created event ran, and only if the guard does not know the key
   */
  public void endWrite(Write<K> write, BooleanSupplier present) {
    ReplicatedGuard.Enter<K> replicated = write.replicated;
    if (replicated != null) {
      // No event tells whether the call created the entry, and a presence check after the call
      // races removals (a racing remove would take this copy and the abort another one): the
      // enter's copy stays, a spare one if the call replaced.
      replicated.visible();
      return;
    }
    boolean created = events.close(write.key, write.token);
    PendingEnter<K> enter = write.enter;
    if (enter == null) {
      staleAgain();
      return;
    }
    try {
      if (created) {
        enter.visible();
        return;
      }
      if (asynchronousEvents) {
        // The event of this write may come after the call returned: the write's own enter is the
        // key's copy if the key is there now (a spare copy if it was there before). If it is not
        // there now, it needs no copy; a later creation has its own enter or event.
        if (present.getAsBoolean()) {
          enter.visible();
        } else {
          enter.abort();
        }
        return;
      }
      if (!eventsBeforeReturn && !write.knownBefore && present.getAsBoolean()) {
        // The guard did not know the key before the call, and the call (or one racing it) left it
        // in the cache without its Created event having run yet: the enter's own copy becomes the
        // key's. Aborting first and entering again would leave the key absent from the guard in
        // between, while the cache holds it (EhcacheLateEventWindowTest). Its late event adds a
        // spare copy, as the re-enter did.
        enter.visible();
        return;
      }
      enter.abort();
      if (!eventsBeforeReturn && !guard.mightContain(write.key) && present.getAsBoolean()) {
        // Known before the call (a copy of its own or a colliding one, or pass-through) but not
        // now: that copy went with a rebuild swap during the call. The gap between the abort and
        // this enter remains for that case only.
        guard.keyEntered(write.key);
      }
    } catch (RuntimeException e) {
      failed("ending a write", e);
    }
  }

  /**
   * Ends a write as visible whatever the events said: the call may have created the entry without
   * its Created event having run (it threw, or it completes elsewhere). A spare copy, a false
   * positive until the next rebuild, if nothing was created.
   */
  public void keepWrite(Write<K> write) {
    ReplicatedGuard.Enter<K> replicated = write.replicated;
    if (replicated != null) {
      replicated.visible();
      return;
    }
    events.close(write.key, write.token);
    PendingEnter<K> enter = write.enter;
    if (enter == null) {
      staleAgain();
      return;
    }
    try {
      enter.visible();
    } catch (RuntimeException e) {
      failed("ending a write", e);
    }
  }

  /**
   * The guard failed to enter a write's key and went stale before the provider call; the rebuild
   * that request started may have scanned the cache before the write made the key visible, so the
   * guard goes stale again now that it is (the core's rule: mark stale once the change is visible).
   */
  private void staleAgain() {
    guard.markStale("a write of a key the guard failed to enter");
  }

  /**
   * A call through the guarded cache that may create one key's entry, between {@link #beginWrite}
   * and {@link #endWrite}/{@link #keepWrite}. Used by one call.
   *
   * @param <K> the key type
   */
  public static final class Write<K> {
    private final K key;

    /** Outside a group: the {@link CreatedEvents} token; in a group: {@link #membership}. */
    private final long token;

    private final @Nullable PendingEnter<K> enter;

    /** Whether the guard might have held the key before this call's enter (see endWrite). */
    private final boolean knownBefore;

    /** In a group: the enter begun on every member (then {@link #enter} is null). */
    private final ReplicatedGuard.@Nullable Enter<K> replicated;

    private Write(
        K key,
        long token,
        @Nullable PendingEnter<K> enter,
        boolean knownBefore,
        ReplicatedGuard.@Nullable Enter<K> replicated) {
      this.key = key;
      this.token = token;
      this.enter = enter;
      this.knownBefore = knownBefore;
      this.replicated = replicated;
    }

    public K key() {
      return key;
    }
  }

  // ---- leaves ----

  /**
   * Announces a removal of {@code key} through the guarded cache; call before the provider call.
   *
   * @return the leave for {@link #endLeave}, or null if this provider's removals are not followed
   *     or the guard failed
   */
  public @Nullable Leave<K> announceLeave(K key) {
    ReplicatedGuard<K> g = group;
    if (g != null) {
      try {
        return new Leave<>(null, g.beginLeave(key));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw groupFailed("interrupted", e);
      } catch (GroupUnavailableException e) {
        throw groupFailed(String.valueOf(e.getMessage()), e);
      } catch (RuntimeException e) {
        throw groupFailed(e.toString(), e);
      }
    }
    if (!eventsBeforeReturn || followsRemovals) {
      return null;
    }
    try {
      return new Leave<>(guard.beginLeave(key), null);
    } catch (RuntimeException e) {
      failed("announcing a removal", e);
      return null;
    }
  }

  /**
   * A removal through the guarded cache, announced before the provider call: on this guard only, or
   * on every member of the group.
   *
   * @param <K> the key type
   */
  public static final class Leave<K> {
    private final @Nullable PendingLeave<K> local;
    private final ReplicatedGuard.@Nullable Leave<K> replicated;

    private Leave(@Nullable PendingLeave<K> local, ReplicatedGuard.@Nullable Leave<K> replicated) {
      this.local = local;
      this.replicated = replicated;
    }

    void end(boolean gone, int ownEnters) {
      if (replicated != null) {
        if (gone) {
          replicated.gone(ownEnters); // cancelled if another write of the key overlapped it
        } else {
          replicated.cancel();
        }
      } else if (local != null) {
        if (gone) {
          local.gone();
        } else {
          local.cancel();
        }
      }
    }
  }

  /**
   * A removal of {@code key} (explicit, expiry or eviction), reported inside the provider's atomic
   * removal, so before the key stops being visible to the key source ({@link #followRemovals}).
   */
  void left(K key) {
    guard.keyLeft(key);
  }

  /**
   * Ends a leave after the provider call: {@code removed} only if the call reported that it removed
   * the entry; a call that threw counts as not removed (a spare copy at worst).
   */
  public void endLeave(@Nullable Leave<K> leave, boolean removed) {
    endLeave(leave, removed, 0);
  }

  /**
   * As {@link #endLeave(Leave, boolean)}, for a call that began {@code ownEnters} writes of the key
   * after announcing the leave (an entry processor run as a write and a leave): in a group, a leave
   * during which a write of the key was open on this member (from any member) is cancelled instead
   * of gone, and the call's own writes do not count ({@link io.github.cuckooguard.spi.OpenEnters}).
   */
  public void endLeave(@Nullable Leave<K> leave, boolean removed, int ownEnters) {
    if (leave == null) {
      return;
    }
    try {
      leave.end(removed, ownEnters);
    } catch (RuntimeException e) {
      failed("ending a removal", e);
    }
  }

  // ---- failures and rebuild ----

  /** Something the guard must hear of could not be applied: it stops answering "absent". */
  void failed(String what, Throwable t) {
    LOGGER.log(
        Level.WARNING,
        "Cuckoo guard '" + guard.name() + "': " + what + " failed; marking the guard" + " stale",
        t);
    guard.markStale(what + " failed: " + t);
  }

  /**
   * The key source: every key the cache's iterator returns. That is all the core's contract asks:
   * keys whose writes are in flight are covered by the guard itself. Iterating a JCache counts as
   * an access of each entry (it may extend access-based expiry and count hits in statistics), and
   * may expire entries on the way (Ehcache does, and its iterator then returns {@code null} for the
   * entry).
   */
  private void scan(Consumer<? super K> action) {
    synchronized (scanGate) {
      if (closed) {
        throw new IllegalStateException(
            "the cache of guard '" + guard.name() + "' was closed; its keys are not read again");
      }
      scanOpen(action);
    }
  }

  private void scanOpen(Consumer<? super K> action) {
    Consumer<Consumer<? super K>> own = ownScan;
    if (own != null) {
      own.accept(action);
      return;
    }
    Iterable<? extends Cache.@Nullable Entry<K, ?>> cache = source;
    if (cache == null) {
      throw new IllegalStateException(
          "the cache of guard '" + guard.name() + "' does not exist yet");
    }
    for (Cache.@Nullable Entry<K, ?> entry : cache) {
      if (entry != null) {
        action.accept(entry.getKey());
      }
    }
  }
}
