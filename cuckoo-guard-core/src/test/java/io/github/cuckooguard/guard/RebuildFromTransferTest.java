package io.github.cuckooguard.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.cuckooguard.ChunkLoader;
import io.github.cuckooguard.CorruptDumpException;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.DumpChunk;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import io.github.cuckooguard.spi.FilterTransfer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A guard that joins late gets its filter from another guard's snapshot ({@link
 * CuckooGuard#snapshot}, streamed as scanDump chunks into a {@link ChunkLoader}) while writers keep
 * entering, leaving and aborting on both guards, as a group's members apply each other's writes.
 * The joiner applies every write that begins after it subscribed (before its rebuild starts); the
 * snapshot is taken inside the transfer, so after the rebuild started. Shadow truth: the source
 * set. Eight-bit fingerprints (keys share fingerprints and buckets, so an unpaired remove soon
 * hides a present key); writer seeds fixed, interleavings vary; the bound is zero false negatives.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RebuildFromTransferTest {

  private static final int PRELOADED = 20_000;
  private static final long SEED = 20261201L;

  /**
   * Writers add only while the source holds fewer keys (else they remove), so the guards (sized for
   * 4 × PRELOADED) stay below the 0.85 load factor at which a guard rebuilds by itself from its
   * KeySource: uncapped, fast writers reached it right after the swap and the joiner scanned once.
   */
  private static final int LIVE_CAP = 2 * PRELOADED;

  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final AtomicInteger joinerScans = new AtomicInteger();
  private final ExecutorService rebuilds = Executors.newFixedThreadPool(2);
  private final CuckooGuard<Long> peer = guard("peer", source::forEach);
  private final CuckooGuard<Long> joiner =
      guard(
          "joiner",
          action -> {
            joinerScans.incrementAndGet();
            source.forEach(action);
          });
  private final AtomicLong nextKey = new AtomicLong();

  /** Whether the joiner receives writes (it is subscribed to the group). */
  private volatile boolean subscribed;

  /**
   * Held by a writer from reading {@link #subscribed} to the end of its write; {@link #subscribe}
   * takes it exclusively, so writes that began unsubscribed have ended when it returns (as a
   * group's JOIN waits for the enters begun before it).
   */
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();

  private void subscribe() {
    gate.writeLock().lock();
    try {
      subscribed = true;
    } finally {
      gate.writeLock().unlock();
    }
  }

  private CuckooGuard<Long> guard(String name, io.github.cuckooguard.KeySource<Long> keys) {
    return CuckooGuard.newBuilder(Funnels.longFunnel())
        .name(name)
        .expectedInsertions(4 * PRELOADED)
        .fingerprintBits(8)
        .keySource(keys)
        .executor(rebuilds)
        .build();
  }

  @AfterEach
  void stop() {
    rebuilds.shutdownNow();
  }

  private void preload() {
    for (int i = 0; i < PRELOADED; i++) {
      long key = nextKey.incrementAndGet();
      try (PendingEnter<Long> e = peer.beginEnter(key)) {
        source.add(key);
        e.visible();
      }
    }
  }

  /** The peer's snapshot, dumped chunk by chunk into one loader (pausing to let writes run). */
  private static CuckooFilter<Long> streamed(
      CuckooFilter<Long> snapshot, Supplier<ChunkLoader<CuckooFilter<Long>>> loaders)
      throws Exception {
    ChunkLoader<CuckooFilter<Long>> loader = loaders.get();
    long cursor = 0;
    while (true) {
      DumpChunk chunk = snapshot.scanDump(cursor);
      if (chunk.isEnd()) {
        return loader.complete();
      }
      loader.loadChunk(chunk);
      cursor = chunk.cursor();
      Thread.sleep(150);
    }
  }

  /**
   * Writers: enters (most), aborted enters, announced leaves and duplicate enters of visible keys,
   * each begun on the peer and, while subscribed, on the joiner; an end goes to the joiner only if
   * its begin did. Runs until {@code stop}.
   */
  private List<Thread> writers(AtomicBoolean stop, AtomicLong steps) {
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      SplittableRandom random = new SplittableRandom(SEED + w);
      threads.add(
          new Thread(
              () -> {
                List<Long> mine = new ArrayList<>();
                while (!stop.get()) {
                  gate.readLock().lock();
                  try {
                    step(random, mine);
                  } finally {
                    gate.readLock().unlock();
                  }
                  steps.incrementAndGet();
                }
              },
              "writer-" + w));
    }
    return threads;
  }

  private void step(SplittableRandom random, List<Long> mine) {
    int op = random.nextInt(10);
    if ((op < 6 && source.size() < LIVE_CAP) || mine.isEmpty()) {
      long key = nextKey.incrementAndGet();
      boolean both = subscribed;
      PendingEnter<Long> p = peer.beginEnter(key);
      PendingEnter<Long> j = both ? joiner.beginEnter(key) : null;
      if (op == 9) { // the write failed: never visible
        p.abort();
        if (j != null) {
          j.abort();
        }
        return;
      }
      source.add(key);
      p.visible();
      if (j != null) {
        j.visible();
      }
      mine.add(key);
    } else if (op < 9) {
      long key = mine.remove(random.nextInt(mine.size()));
      boolean both = subscribed;
      PendingLeave<Long> p = peer.beginLeave(key);
      PendingLeave<Long> j = both ? joiner.beginLeave(key) : null;
      source.remove(key);
      p.gone();
      if (j != null) {
        j.gone();
      }
    } else {
      long key = mine.get(random.nextInt(mine.size()));
      boolean both = subscribed;
      PendingEnter<Long> p = peer.beginEnter(key); // a duplicate insert, refused
      PendingEnter<Long> j = both ? joiner.beginEnter(key) : null;
      p.abort();
      if (j != null) {
        j.abort();
      }
    }
  }

  private long falseNegatives(CuckooGuard<Long> guard) {
    long misses = 0;
    for (Long key : source) {
      if (!guard.mightContain(key) && source.contains(key)) {
        misses++;
      }
    }
    return misses;
  }

  @Test
  void aJoinerLoadedFromAPeersSnapshotMissesNoKeyAndNeverScans() throws Exception {
    preload();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong steps = new AtomicLong();
    List<Thread> writers = writers(stop, steps);
    writers.forEach(Thread::start);
    Thread.sleep(100);
    // Subscribe first, then rebuild; the transfer snapshots the peer only once the rebuild runs.
    subscribe();
    AtomicLong stepsDuringTransfer = new AtomicLong();
    FilterTransfer<Long> transfer =
        loaders -> {
          long before = steps.get();
          Thread.sleep(100); // writes after install, before the snapshot
          CuckooFilter<Long> snapshot = Objects.requireNonNull(peer.snapshot(), "peer snapshot");
          CuckooFilter<Long> loaded = streamed(snapshot, loaders);
          Thread.sleep(100); // writes after the snapshot, before the swap
          stepsDuringTransfer.set(steps.get() - before);
          return loaded;
        };
    joiner.rebuildFrom(transfer).get(30, TimeUnit.SECONDS);
    assertThat(joiner.isPassThrough()).isFalse();
    long fnAfterSwap = 0;
    for (int round = 0; round < 5; round++) { // while the writers go on
      fnAfterSwap += falseNegatives(joiner);
    }
    stop.set(true);
    for (Thread t : writers) {
      t.join();
    }
    assertThat(stepsDuringTransfer.get()).as("writes during the transfer").isGreaterThan(100);
    assertThat(fnAfterSwap).as("false negatives while writes went on").isZero();
    assertThat(falseNegatives(joiner)).as("false negatives at the end").isZero();
    assertThat(joinerScans.get()).as("KeySource scans of the joiner").isZero();
    assertThat(joiner.inFlight()).isZero();
    // The joiner holds about what the peer holds: spare copies only for keys written meanwhile.
    long spare = joiner.stats().size() - peer.stats().size();
    assertThat(spare).isBetween(0L, stepsDuringTransfer.get() + 1_000);
  }

  @Test
  void aTransferThatFailsFallsBackToTheKeySourceInTheSameRebuild() throws Exception {
    preload();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong steps = new AtomicLong();
    List<Thread> writers = writers(stop, steps);
    subscribe();
    writers.forEach(Thread::start);
    FilterTransfer<Long> dying =
        loaders -> {
          ChunkLoader<CuckooFilter<Long>> loader = loaders.get();
          CuckooFilter<Long> snapshot = Objects.requireNonNull(peer.snapshot());
          loader.loadChunk(snapshot.scanDump(0)); // the header arrived, then the peer died
          Thread.sleep(200);
          throw new java.io.IOException("peer left mid-stream");
        };
    joiner.rebuildFrom(dying).get(30, TimeUnit.SECONDS);
    long fnAfterSwap = falseNegatives(joiner);
    stop.set(true);
    for (Thread t : writers) {
      t.join();
    }
    assertThat(joinerScans.get()).as("fell back to one KeySource scan").isEqualTo(1);
    assertThat(fnAfterSwap).isZero();
    assertThat(falseNegatives(joiner)).isZero();
    assertThat(joiner.isPassThrough()).isFalse();
  }

  @Test
  void chunksOfTwoSnapshotsAreRefusedAndTheRebuildScansInstead() throws Exception {
    preload();
    subscribe();
    // Two snapshots of one state: same seed, same write count, same content; other dump ids.
    CuckooFilter<Long> first = Objects.requireNonNull(peer.snapshot());
    CuckooFilter<Long> second = Objects.requireNonNull(peer.snapshot());
    AtomicReferenceHolder refused = new AtomicReferenceHolder();
    FilterTransfer<Long> mixed =
        loaders -> {
          ChunkLoader<CuckooFilter<Long>> loader = loaders.get();
          loader.loadChunk(first.scanDump(0)); // header of the first snapshot
          DumpChunk body = second.scanDump(1); // body of the second
          try {
            loader.loadChunk(body);
          } catch (CorruptDumpException e) {
            refused.message = e.getMessage();
            throw e;
          }
          return loader.complete();
        };
    joiner.rebuildFrom(mixed).get(30, TimeUnit.SECONDS);
    assertThat(refused.message).contains("belongs to another dump");
    assertThat(joinerScans.get()).isEqualTo(1);
    assertThat(falseNegatives(joiner)).isZero();
  }

  private static final class AtomicReferenceHolder {
    volatile String message = "";
  }

  @Test
  void aSnapshotIsRefusedWhilePassThroughIsOnAndIsIndependentOfTheGuard() {
    preload();
    CuckooFilter<Long> snapshot = Objects.requireNonNull(peer.snapshot());
    long before = snapshot.approximateElementCount();
    try (PendingEnter<Long> e = peer.beginEnter(-1L)) {
      e.visible();
    }
    assertThat(snapshot.approximateElementCount()).isEqualTo(before);
    assertThat(snapshot.approximateElementCount()).isEqualTo(PRELOADED);
    CuckooGuard<Long> stale =
        CuckooGuard.newBuilder(Funnels.longFunnel()).expectedInsertions(100).build();
    stale.markStale("test");
    assertThat(stale.snapshot()).isNull();
    assertThatThrownBy(() -> stale.rebuildFrom(loaders -> snapshot).join())
        .hasMessageContaining("needs a KeySource");
  }

  /**
   * A semi-sorted guard's snapshot keeps the semi-sorted layout: its words are copied as they are,
   * so read as a plain table they would decode to other fingerprints (a copy that dropped the
   * layout misses most keys here). Checked on the copy itself and after its scanDump chunks were
   * loaded, as a joiner loads them; 12-bit fingerprints, grown into plain sub-filters too.
   */
  @Test
  void aSemiSortedGuardsSnapshotHoldsEveryKeyInItsOwnLayout() throws Exception {
    Set<Long> keys = ConcurrentHashMap.newKeySet();
    CuckooGuard<Long> semi =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .name("semi")
            .expectedInsertions(2_000)
            .fingerprintBits(12)
            .semiSorted()
            .keySource(keys::forEach)
            .build();
    SplittableRandom random = new SplittableRandom(SEED);
    for (int i = 0; i < 6_000; i++) { // three times the expected: growth adds sub-filters
      long k = random.nextLong();
      try (PendingEnter<Long> e = semi.beginEnter(k)) {
        keys.add(k); // visible at the source before visible(): a rebuild may run at any time
        e.visible();
      }
    }
    CuckooFilter<Long> snapshot = Objects.requireNonNull(semi.snapshot());
    long missingInCopy = keys.stream().filter(k -> !snapshot.mightContain(k)).count();
    assertThat(missingInCopy).as("keys the snapshot misses").isZero();
    ChunkLoader<CuckooFilter<Long>> loader = CuckooFilter.loader(Funnels.longFunnel());
    for (long cursor = 0; ; ) {
      DumpChunk chunk = snapshot.scanDump(cursor);
      if (chunk.isEnd()) {
        break;
      }
      loader.loadChunk(chunk);
      cursor = chunk.cursor();
    }
    CuckooFilter<Long> loaded = loader.complete();
    long missingLoaded = keys.stream().filter(k -> !loaded.mightContain(k)).count();
    assertThat(missingLoaded).as("keys the loaded snapshot misses").isZero();
  }
}
