package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer-dump join with real members in this JVM (127.0.0.1, TCP-IP join, multicast and
 * auto-detection off): a member that joins while writers keep entering on the others loads a peer's
 * snapshot, streamed in pieces of scanDump chunks, and keeps the enters that reach it meanwhile.
 * Shadow truth: the shared source set; a key in it for which a member answers false is a false
 * negative. Every member's KeySource counts its scans.
 */
class PeerDumpJoinTest {

  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int PRELOADED = 100_000;

  /** Small pieces, so that a dump of ~1 MiB takes hundreds of messages and can be cut mid-way. */
  private static final int PIECE_BYTES = 4 * 1024;

  private final Set<Long> source = ConcurrentHashMap.newKeySet();
  private final AtomicLong nextKey = new AtomicLong();
  private final List<HazelcastGuardGroup<Long>> groups = new ArrayList<>();

  @AfterEach
  void closeGroups() {
    for (HazelcastGuardGroup<Long> g : groups) {
      try {
        g.close();
      } catch (RuntimeException e) {
        // its member is gone
      }
    }
  }

  private static final class Member {
    final HazelcastInstance hazelcast;
    final HazelcastGuardGroup<Long> group;
    final AtomicInteger scans;

    Member(HazelcastInstance hazelcast, HazelcastGuardGroup<Long> group, AtomicInteger scans) {
      this.hazelcast = hazelcast;
      this.group = group;
      this.scans = scans;
    }
  }

  private Member member(Members members) {
    HazelcastInstance hz = members.start();
    AtomicInteger scans = new AtomicInteger();
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .name("ids")
            .expectedInsertions(400_000)
            .fpp(0.001)
            .keySource(
                action -> {
                  scans.incrementAndGet();
                  source.forEach(action);
                })
            .build();
    HazelcastGuardGroup<Long> group =
        HazelcastGuardGroup.newBuilder(hz, guard).lease(LEASE).dumpPieceBytes(PIECE_BYTES).join();
    groups.add(group);
    return new Member(hz, group, scans);
  }

  /** Enters {@link #PRELOADED} keys through {@code m} (the first member: no round trips). */
  private void preload(Member m) throws InterruptedException {
    for (int i = 0; i < PRELOADED; i++) {
      long key = nextKey.incrementAndGet();
      try (ReplicatedGuard.Enter<Long> e = m.group.guard().beginEnter(key)) {
        source.add(key);
        e.visible();
      }
    }
  }

  /** A writer thread per member, entering new keys (visible after the group has them). */
  private List<Thread> writers(AtomicBoolean stop, LongAdder written, Member... on) {
    List<Thread> threads = new ArrayList<>();
    for (Member m : on) {
      threads.add(
          new Thread(
              () -> {
                while (!stop.get()) {
                  long key = nextKey.incrementAndGet();
                  try (ReplicatedGuard.Enter<Long> e = m.group.guard().beginEnter(key)) {
                    source.add(key);
                    e.visible();
                    written.increment();
                  } catch (InterruptedException ex) {
                    return;
                  } catch (RuntimeException ex) {
                    // GroupUnavailableException (the member shut down): the key never became
                    // visible; try again until stopped
                  }
                }
              },
              "writer"));
    }
    return threads;
  }

  /** Reads every key of the source on {@code m}; counts false negatives and leased answers. */
  private static final class Reader extends Thread {
    final LongAdder falseNegatives = new LongAdder();
    final LongAdder leasedReads = new LongAdder();
    private final Member m;
    private final Set<Long> source;
    private final AtomicBoolean stop;

    Reader(Member m, Set<Long> source, AtomicBoolean stop) {
      super("reader");
      this.m = m;
      this.source = source;
      this.stop = stop;
    }

    @Override
    public void run() {
      while (!stop.get()) {
        for (Long key : source) {
          boolean leased = m.group.mayAnswerAbsent();
          if (!m.group.guard().mightContain(key)) {
            falseNegatives.increment(); // keys never leave the source here
          }
          if (leased) {
            leasedReads.increment();
          }
          if (stop.get()) {
            return;
          }
        }
      }
    }
  }

  private static void await(String what, Duration within, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(what + " did not happen within " + within);
      }
      Thread.sleep(5);
    }
  }

  /** Every key of the source answered on {@code m}; returns the misses. */
  private long misses(Member m) {
    long n = 0;
    for (Long key : source) {
      if (!m.group.guard().mightContain(key)) {
        n++;
      }
    }
    return n;
  }

  @Test
  @Timeout(180)
  void aJoinerLoadsAPeersDumpWhileWritersEnterAndNeverScansItsKeySource() throws Exception {
    try (Members members = new Members()) {
      Member a = member(members);
      Members.awaitLeased(Duration.ofSeconds(30), a.group);
      preload(a);
      Member b = member(members);
      Members.awaitLeased(Duration.ofSeconds(30), a.group, b.group);

      AtomicBoolean stop = new AtomicBoolean();
      LongAdder written = new LongAdder();
      List<Thread> writers = writers(stop, written, a, b);
      writers.forEach(Thread::start);
      Thread.sleep(200);
      long writtenBeforeJoin = written.sum();
      Member c = member(members);
      Reader reader = new Reader(c, source, stop);
      reader.start();
      await("C's lease", Duration.ofSeconds(60), c.group::mayAnswerAbsent);
      long writtenDuringJoin = written.sum() - writtenBeforeJoin;
      await("leased reads on C", Duration.ofSeconds(60), () -> reader.leasedReads.sum() > 200_000);
      stop.set(true);
      for (Thread t : writers) {
        t.join();
      }
      reader.join();

      assertThat(writtenDuringJoin).as("keys entered while C joined").isGreaterThan(0);
      assertThat(reader.falseNegatives.sum()).as("false negatives on C").isZero();
      assertThat(misses(c)).as("false negatives on C at the end").isZero();
      assertThat(misses(a) + misses(b)).isZero();
      assertThat(c.group.peerDumpsLoaded()).as("C joined from a dump").isPositive();
      assertThat(c.scans.get()).as("C's KeySource scans").isZero();
      assertThat(a.group.dumps().opened() + b.group.dumps().opened()).isPositive();
    }
  }

  @Test
  @Timeout(180)
  void aPeerShutDownMidStreamIsReplacedByAnotherPeer() throws Exception {
    try (Members members = new Members()) {
      Member a = member(members);
      Members.awaitLeased(Duration.ofSeconds(30), a.group);
      preload(a);
      Member b = member(members);
      Members.awaitLeased(Duration.ofSeconds(30), a.group, b.group);

      AtomicBoolean stop = new AtomicBoolean();
      AtomicBoolean stopA = new AtomicBoolean();
      AtomicBoolean stopB = new AtomicBoolean();
      LongAdder written = new LongAdder();
      List<Thread> writersA = writers(stopA, written, a);
      List<Thread> writersB = writers(stopB, written, b);
      writersA.forEach(Thread::start);
      writersB.forEach(Thread::start);
      Member c = member(members);
      Reader reader = new Reader(c, source, stop);
      reader.start();
      await(
          "a peer streaming to C",
          Duration.ofSeconds(60),
          () -> a.group.dumps().piecesServed() > 20 || b.group.dumps().piecesServed() > 20);
      Member serving = a.group.dumps().piecesServed() > 20 ? a : b;
      Member other = serving == a ? b : a;
      // The serving member's writer goes down with it (as its process would): a writer left running
      // on a member that has left the cluster is outside what the group can make safe.
      (serving == a ? stopA : stopB).set(true);
      for (Thread t : serving == a ? writersA : writersB) {
        t.join();
      }
      serving.group.close();
      serving.hazelcast.shutdown(); // mid-stream
      await("C's lease", Duration.ofSeconds(90), c.group::mayAnswerAbsent);
      Thread.sleep(500);
      stop.set(true);
      stopA.set(true);
      stopB.set(true);
      for (Thread t : writersA) {
        t.join();
      }
      for (Thread t : writersB) {
        t.join();
      }
      reader.join();

      assertThat(reader.falseNegatives.sum()).as("false negatives on C").isZero();
      assertThat(misses(c)).isZero();
      assertThat(misses(other)).isZero();
      assertThat(other.group.dumps().opened()).as("the other peer served C").isPositive();
      assertThat(c.group.peerDumpsLoaded()).isPositive();
      assertThat(c.scans.get()).as("C's KeySource scans").isZero();
    }
  }

  @Test
  @Timeout(180)
  void withTheOnlyPeerKilledMidStreamTheJoinerScansItsKeySource() throws Exception {
    try (Members members = new Members()) {
      Member a = member(members);
      Members.awaitLeased(Duration.ofSeconds(30), a.group);
      preload(a);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicBoolean stopA = new AtomicBoolean();
      LongAdder written = new LongAdder();
      List<Thread> writers = writers(stopA, written, a);
      writers.forEach(Thread::start);
      Member b = member(members);
      Reader reader = new Reader(b, source, stop);
      reader.start();
      await("A streaming to B", Duration.ofSeconds(60), () -> a.group.dumps().piecesServed() > 20);
      stopA.set(true);
      for (Thread t : writers) {
        t.join();
      }
      a.hazelcast.getLifecycleService().terminate(); // a crash: no goodbye, its writer gone with it
      await("B's lease", Duration.ofSeconds(90), b.group::mayAnswerAbsent);
      // B alone now: its own writes too
      for (int i = 0; i < 1_000; i++) {
        long key = nextKey.incrementAndGet();
        try (ReplicatedGuard.Enter<Long> e = b.group.guard().beginEnter(key)) {
          source.add(key);
          e.visible();
        }
      }
      Thread.sleep(200);
      stop.set(true);
      reader.join(TimeUnit.SECONDS.toMillis(10));

      assertThat(reader.falseNegatives.sum()).as("false negatives on B").isZero();
      assertThat(misses(b)).isZero();
      assertThat(b.scans.get()).as("B fell back to its KeySource").isPositive();
      assertThat(b.group.peerDumpsLoaded()).isZero();
    }
  }
}
