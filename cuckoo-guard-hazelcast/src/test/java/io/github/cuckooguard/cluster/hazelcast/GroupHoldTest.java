package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Writes whose keys no member is told (a bulk or native statement): the writer holds the group
 * before the write, and each member answers "absent" again only after a rebuild that started after
 * the release. The "bulk write" here adds keys to the shared source directly, never through a
 * guard, so nothing but the hold and the rebuild after it keeps them from being reported absent.
 */
class GroupHoldTest {

  private static final Duration LEASED_WITHIN = Duration.ofSeconds(30);

  /** Occupies one executor thread of the member it runs on until released. */
  static final class Stall implements Callable<Integer>, Serializable {
    private static final long serialVersionUID = 1L;
    static volatile CountDownLatch running = new CountDownLatch(0);
    static volatile CountDownLatch release = new CountDownLatch(0);

    @Override
    public Integer call() throws InterruptedException {
      running.countDown();
      release.await(60, TimeUnit.SECONDS);
      return 0;
    }
  }

  /** Checks every key of the source on each group, again and again, counting "absent" answers. */
  private static final class Readers implements AutoCloseable {
    final LongAdder falseNegatives = new LongAdder();
    final LongAdder checks = new LongAdder();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Readers(Set<Long> source, List<HazelcastGuardGroup<Long>> groups) {
      thread =
          new Thread(
              () -> {
                while (!stop.get()) {
                  for (Long k : List.copyOf(source)) { // a key in the source is present
                    for (HazelcastGuardGroup<Long> g : groups) {
                      if (!g.guard().mightContain(k)) {
                        falseNegatives.increment();
                      }
                      checks.increment();
                    }
                  }
                }
              },
              "readers");
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      thread.join();
    }
  }

  private static void write(HazelcastGuardGroup<Long> writer, Set<Long> source, long key)
      throws Exception {
    ReplicatedGuard.Enter<Long> enter = writer.guard().beginEnter(key);
    source.add(key);
    enter.visible();
  }

  private static void awaitAbsentAnswered(HazelcastGuardGroup<Long> g, long absentKey)
      throws InterruptedException {
    long deadline = System.nanoTime() + LEASED_WITHIN.toNanos();
    while (g.guard().mightContain(absentKey)) {
      assertThat(System.nanoTime() - deadline)
          .as(g + " answers absent again (leased, rebuilt)")
          .isNegative();
      Thread.sleep(10);
    }
  }

  /**
   * B and C are held by A's hold; B even rebuilds during it (its filter complete again, lacking the
   * write's keys, which are added afterwards, as a commit would). The variant whose {@code
   * mayAnswerAbsent} ignores holds fails here: B answers "absent" for the bulk keys until the
   * release.
   */
  @Test
  @Timeout(120)
  void heldMembersPassThroughUntilARebuildAfterTheRelease() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastGuardGroup<Long> a = members.group(members.start(), source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      HazelcastGuardGroup<Long> c = members.group(members.start(), source);
      Members.awaitLeased(LEASED_WITHIN, a, b, c);
      for (long k = 1; k <= 50; k++) {
        write(a, source, k);
      }
      try (Readers readers = new Readers(source, List.of(b, c))) {
        ReplicatedGuard.Hold hold = a.guard().hold();
        boolean bothHeld = b.heldByAnotherMember() && c.heldByAnotherMember();
        b.guard().local().rebuild().get(30, TimeUnit.SECONDS); // complete again, without the rows
        for (long k = 10_001; k <= 11_000; k++) {
          source.add(k); // the statement's rows, committed behind every guard's back
        }
        long missingLocally =
            source.stream().filter(k -> k > 10_000 && !b.guard().local().mightContain(k)).count();
        assertThat(missingLocally)
            .as("B's own filter lacks the rows: only the hold protects them")
            .isGreaterThan(900);
        Thread.sleep(3 * Members.LEASE.toMillis()); // leases renew meanwhile: the hold stays
        bothHeld &= b.heldByAnotherMember() && c.heldByAnotherMember();
        hold.release().toCompletableFuture().get(30, TimeUnit.SECONDS);
        awaitAbsentAnswered(b, -1L);
        awaitAbsentAnswered(c, -1L);
        readers.close();
        System.out.printf(
            "hold: %d checks on B and C, false negatives %d%n",
            readers.checks.sum(), readers.falseNegatives.sum());
        assertThat(readers.falseNegatives.sum()).isZero();
        assertThat(readers.checks.sum()).isGreaterThan(10_000);
        assertThat(bothHeld).as("B and C held until the release").isTrue();
        assertThat(b.heldByAnotherMember() || c.heldByAnotherMember()).isFalse();
      }
      for (long k = 10_001; k <= 11_000; k++) {
        assertThat(b.guard().local().mightContain(k)).as("rebuilt after the release").isTrue();
        assertThat(c.guard().local().mightContain(k)).as("rebuilt after the release").isTrue();
      }
      assertThat(a.openHolds()).isZero();
    }
  }

  /**
   * The hold cannot be applied on C (its executor is stalled, as if the message were lost): A waits
   * out C's lease before the statement runs, and C, once it can run again, must not finish a rejoin
   * (whose rebuild would scan before the commit) until A released. The variant that does not
   * register the hold for the JOIN drain fails here: C rejoins, rebuilds without the rows added
   * after, and answers "absent" for them.
   */
  @Test
  @Timeout(120)
  void memberThatMissedTheHoldIsWaitedOutAndCannotRejoinBeforeTheRelease() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance first = members.start();
      HazelcastGuardGroup<Long> a = members.group(first, source);
      HazelcastInstance third = members.start();
      HazelcastGuardGroup<Long> c = members.group(third, source);
      Members.awaitLeased(LEASED_WITHIN, a, c);
      for (long k = 1; k <= 50; k++) {
        write(a, source, k);
      }
      try (Readers readers = new Readers(source, List.of(c))) {
        long lapsesBefore = c.lapses();
        Stall.release = new CountDownLatch(1);
        Stall.running = new CountDownLatch(Members.EXECUTOR_THREADS);
        Member cMember = third.getCluster().getLocalMember();
        for (int i = 0; i < Members.EXECUTOR_THREADS; i++) {
          first.getExecutorService("cuckoo-guard").submitToMember(new Stall(), cMember);
        }
        assertThat(Stall.running.await(30, TimeUnit.SECONDS)).as("C's executor stalled").isTrue();
        long t0 = System.nanoTime();
        ReplicatedGuard.Hold hold = a.guard().hold();
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        boolean heldAtOnce = c.heldByAnotherMember();
        boolean leasedAfterTheHold = c.mayAnswerAbsent();
        Stall.release.countDown(); // C runs again: lapses, tries to rejoin
        long until = System.nanoTime() + 3 * Members.LEASE.toNanos();
        boolean leasedBeforeRelease = false;
        while (System.nanoTime() - until < 0) {
          leasedBeforeRelease |= c.mayAnswerAbsent();
          Thread.sleep(5);
        }
        for (long k = 20_001; k <= 21_000; k++) {
          source.add(k); // the statement commits
        }
        leasedBeforeRelease |= c.mayAnswerAbsent();
        hold.release().toCompletableFuture().get(30, TimeUnit.SECONDS);
        awaitAbsentAnswered(c, -1L);
        readers.close();
        System.out.printf(
            "missed hold: A waited %d ms; C lapsed %d times, leased before the release %s;"
                + " %d checks, false negatives %d%n",
            waitedMillis,
            c.lapses() - lapsesBefore,
            leasedBeforeRelease,
            readers.checks.sum(),
            readers.falseNegatives.sum());
        assertThat(readers.falseNegatives.sum()).isZero();
        assertThat(heldAtOnce).as("C could not apply the hold").isFalse();
        assertThat(leasedAfterTheHold).as("C's lease was waited out").isFalse();
        assertThat(leasedBeforeRelease).as("C rejoined before the release").isFalse();
        assertThat(c.lapses()).isGreaterThan(lapsesBefore);
      }
      for (long k = 20_001; k <= 21_000; k++) {
        assertThat(c.guard().local().mightContain(k)).as("rebuilt after the release").isTrue();
      }
    }
  }

  /**
   * The holding member dies between hold and release (its member terminated, no release is ever
   * sent): B ends the hold when Hazelcast removes A, after marking its guard stale, and rebuilds;
   * it is held neither for good nor lifted without a rebuild that sees what A committed.
   */
  @Test
  @Timeout(120)
  void holdOfAMemberThatDiesEndsThroughARebuild() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance first = members.start();
      HazelcastGuardGroup<Long> a = members.group(first, source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      Members.awaitLeased(LEASED_WITHIN, a, b);
      for (long k = 1; k <= 50; k++) {
        write(a, source, k);
      }
      try (Readers readers = new Readers(source, List.of(b))) {
        a.guard().hold();
        boolean held = b.heldByAnotherMember();
        for (long k = 30_001; k <= 31_000; k++) {
          source.add(k); // committed just before A died
        }
        first.getLifecycleService().terminate(); // no release, no graceful leave
        awaitAbsentAnswered(b, -1L);
        readers.close();
        System.out.printf(
            "holder died: %d checks on B, false negatives %d%n",
            readers.checks.sum(), readers.falseNegatives.sum());
        assertThat(readers.falseNegatives.sum()).isZero();
        assertThat(held).isTrue();
        assertThat(b.heldByAnotherMember()).isFalse();
      }
      for (long k = 30_001; k <= 31_000; k++) {
        assertThat(b.guard().mightContain(k)).as("rebuilt after A left").isTrue();
      }
    }
  }
}
