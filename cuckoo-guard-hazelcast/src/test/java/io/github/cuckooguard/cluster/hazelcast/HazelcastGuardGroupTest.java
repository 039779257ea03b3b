package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Members in one JVM. The shared source is one concurrent set (the "database" every member reads
 * and writes); its keys are the shadow truth: a key in it for which a member answers false is a
 * false negative.
 */
class HazelcastGuardGroupTest {

  private static final Duration LEASED_WITHIN = Duration.ofSeconds(30);

  /**
   * Cross-member write-then-read pairs: 20,000 by default (~40 s on 2 shared cores); the issue asks
   * for 100,000: -Dcuckoo.cluster.pairs=100000.
   */
  private static final int PAIRS = Integer.getInteger("cuckoo.cluster.pairs", 20_000);

  @Test
  @Timeout(240)
  void crossMemberWriteThenReadHasNoFalseNegatives() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      // A 3 s lease: this test counts answers given while leased; on 2 cores shared with other
      // builds a 1 s lease's renewal rounds (deadline lease / 3) can starve, and a member then
      // passes through (correct, but such reads prove nothing). The writers also go on past PAIRS
      // until half as many reads were leased (bounded by the deadline).
      HazelcastGuardGroup<Long> a = members.group(members.start(), source, Duration.ofSeconds(3));
      HazelcastGuardGroup<Long> b = members.group(members.start(), source, Duration.ofSeconds(3));
      Members.awaitLeased(LEASED_WITHIN, a, b);

      AtomicLong nextKey = new AtomicLong();
      AtomicLong written = new AtomicLong();
      LongAdder reads = new LongAdder();
      LongAdder leasedReads = new LongAdder();
      LongAdder falseNegatives = new LongAdder();
      BlockingQueue<Long> toB = new ArrayBlockingQueue<>(10_000);
      BlockingQueue<Long> toA = new ArrayBlockingQueue<>(10_000);
      long[] latencies = new long[PAIRS];
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        HazelcastGuardGroup<Long> writer = w % 2 == 0 ? a : b;
        BlockingQueue<Long> handOff = w % 2 == 0 ? toB : toA;
        threads.add(
            new Thread(
                () -> {
                  try {
                    long n;
                    while (((n = written.getAndIncrement()) < PAIRS
                            || leasedReads.sum() < PAIRS / 2)
                        && System.nanoTime() - deadline < 0) {
                      long key = nextKey.incrementAndGet();
                      long start = System.nanoTime();
                      ReplicatedGuard.Enter<Long> enter = writer.guard().beginEnter(key);
                      if (n < PAIRS) {
                        latencies[(int) n] = System.nanoTime() - start;
                      }
                      source.add(
                          key); // visible at the source only after every member has it in flight
                      enter.visible();
                      handOff.put(key);
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "writer-" + w));
      }
      AtomicBoolean writersDone = new AtomicBoolean();
      for (int r = 0; r < 4; r++) {
        HazelcastGuardGroup<Long> reader = r % 2 == 0 ? b : a;
        BlockingQueue<Long> handOff = r % 2 == 0 ? toB : toA;
        threads.add(
            new Thread(
                () -> {
                  try {
                    while (true) {
                      Long key = handOff.poll(20, TimeUnit.MILLISECONDS);
                      if (key == null) {
                        if (writersDone.get() && handOff.isEmpty()) {
                          return;
                        }
                        continue;
                      }
                      boolean leased = reader.mayAnswerAbsent();
                      if (!reader.guard().mightContain(key)) {
                        falseNegatives.increment();
                      }
                      reads.increment();
                      if (leased) {
                        leasedReads.increment();
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "reader-" + r));
      }
      long t0 = System.nanoTime();
      threads.forEach(Thread::start);
      for (Thread t : threads.subList(0, 4)) {
        t.join();
      }
      writersDone.set(true);
      for (Thread t : threads.subList(4, 8)) {
        t.join();
      }
      long took = System.nanoTime() - t0;
      long pairs = reads.sum();
      long[] done = Arrays.copyOf(latencies, (int) Math.min(PAIRS, pairs));
      Arrays.sort(done);
      System.out.printf(
          "cross-member pairs %d in %d ms; leased reads %d; false negatives %d; enter latency"
              + " p50 %.3f ms, p99 %.3f ms; lapses A %d B %d; begins sent A %d B %d%n",
          pairs,
          TimeUnit.NANOSECONDS.toMillis(took),
          leasedReads.sum(),
          falseNegatives.sum(),
          done[done.length / 2] / 1e6,
          done[done.length * 99 / 100] / 1e6,
          a.lapses(),
          b.lapses(),
          a.beginsSent(),
          b.beginsSent());

      assertThat(falseNegatives.sum()).isZero();
      assertThat(pairs).isGreaterThanOrEqualTo(PAIRS);
      // Not vacuous: the readers mostly held a lease, and absent keys are short-circuited.
      assertThat(leasedReads.sum()).isGreaterThanOrEqualTo(PAIRS / 2);
      long absent = 0;
      for (long k = -1; k >= -10_000; k--) {
        absent += b.guard().mightContain(k) ? 0 : 1;
      }
      assertThat(absent).isGreaterThan(9_000);
    }
  }

  @Test
  @Timeout(120)
  void rollbackRemovesTheKeyOnEveryMemberPaired() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastGuardGroup<Long> a = members.group(members.start(), source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      Members.awaitLeased(LEASED_WITHIN, a, b);
      long dumpsBefore = a.peerDumpsLoaded() + b.peerDumpsLoaded();
      for (long key = 1; key <= 1_000; key++) {
        ReplicatedGuard.Enter<Long> enter = a.guard().beginEnter(key);
        assertThat(b.guard().local().mightContain(key))
            .as("in flight on B before visible")
            .isTrue();
        enter.abort().toCompletableFuture().get(5, TimeUnit.SECONDS); // the write rolled back
      }
      assertThat(b.openRemoteWrites()).isZero();
      assertThat(b.guard().local().inFlight()).isZero();
      // Exact, unless a member lapsed and rejoined from the other's dump meanwhile: the one enter
      // in flight then is in the snapshot and kept by the joiner's rebuild as well, and its abort
      // removes one of the two copies (a spare copy, a false positive; never a missing one).
      long rejoinedFromDump = a.peerDumpsLoaded() + b.peerDumpsLoaded() - dumpsBefore;
      assertThat(b.guard().local().stats().size()).isLessThanOrEqualTo(rejoinedFromDump);
      assertThat(a.guard().local().stats().size()).isLessThanOrEqualTo(rejoinedFromDump);
      long stillThere = 0;
      for (long key = 1; key <= 1_000; key++) {
        stillThere += b.guard().mightContain(key) ? 1 : 0;
      }
      assertThat(stillThere)
          .isLessThanOrEqualTo(10); // only pass-through could keep them; B is leased
    }
  }

  @Test
  @Timeout(120)
  void memberShutDownMidWritesDoesNotBlockWritersBeyondTheLease() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastGuardGroup<Long> a = members.group(members.start(), source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      HazelcastInstance third = members.start();
      HazelcastGuardGroup<Long> c = members.group(third, source);
      Members.awaitLeased(LEASED_WITHIN, a, b, c);
      AtomicLong maxEnterNanos = new AtomicLong();
      LongAdder falseNegatives = new LongAdder();
      AtomicLong nextKey = new AtomicLong();
      long stopAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        writers.add(
            new Thread(
                () -> {
                  try {
                    while (System.nanoTime() - stopAt < 0) {
                      long key = nextKey.incrementAndGet();
                      long start = System.nanoTime();
                      ReplicatedGuard.Enter<Long> enter = a.guard().beginEnter(key);
                      maxEnterNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                      source.add(key);
                      enter.visible();
                      if (!b.guard().mightContain(key)) {
                        falseNegatives.increment();
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }));
      }
      writers.forEach(Thread::start);
      Thread.sleep(1_000);
      third.getLifecycleService().terminate(); // no goodbye from the group: Hazelcast notices
      for (Thread t : writers) {
        t.join();
      }
      long maxMillis = TimeUnit.NANOSECONDS.toMillis(maxEnterNanos.get());
      System.out.println(
          "writes " + nextKey.get() + ", slowest enter " + maxMillis + " ms after a member died");
      assertThat(falseNegatives.sum()).isZero();
      // ack timeout 500 ms + lease 1,000 ms × (1 + 2 × 1 %) + 10 ms = 1,530 ms, plus room for a
      // loaded machine
      assertThat(maxMillis).isLessThan(2_500);
      assertThat(nextKey.get()).isGreaterThan(100);
    }
  }

  /**
   * Occupies every thread of a member's group executor: the member stays in the cluster but cannot
   * answer.
   */
  static final class Stall implements Callable<Integer>, Serializable {
    private static final long serialVersionUID = 1L;
    static volatile CountDownLatch release = new CountDownLatch(0);

    @Override
    public Integer call() throws InterruptedException {
      release.await(60, TimeUnit.SECONDS);
      return 0;
    }
  }

  @Test
  @Timeout(120)
  void silentMemberNeverAnswersAbsentForKeysWrittenWhileItWasSilent() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance first = members.start();
      HazelcastGuardGroup<Long> a = members.group(first, source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      HazelcastInstance third = members.start();
      HazelcastGuardGroup<Long> c = members.group(third, source);
      Members.awaitLeased(LEASED_WITHIN, a, b, c);

      LongAdder falseNegatives = new LongAdder();
      LongAdder leasedChecks = new LongAdder();
      AtomicBoolean stop = new AtomicBoolean();
      Thread poller =
          new Thread(
              () -> { // C's readers keep asking for every key at the source
                while (!stop.get()) {
                  for (Long key : source) {
                    boolean leased = c.mayAnswerAbsent();
                    if (!c.guard().mightContain(key)) {
                      falseNegatives.increment();
                    }
                    if (leased) {
                      leasedChecks.increment();
                    }
                  }
                  Thread.onSpinWait();
                }
              });
      poller.start();

      Stall.release = new CountDownLatch(1);
      Member cMember = third.getCluster().getLocalMember();
      for (int i = 0; i < Members.EXECUTOR_THREADS; i++) {
        first.getExecutorService("cuckoo-guard").submitToMember(new Stall(), cMember);
      }
      long key = 0;
      long stallEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      while (System.nanoTime() - stallEnds < 0) {
        ReplicatedGuard.Enter<Long> enter = a.guard().beginEnter(++key);
        source.add(key);
        enter.visible();
      }
      long writtenWhileSilent = key;
      Stall.release.countDown();
      for (int i = 0; i < 200; i++) { // and after: C rejoins through pass-through and a rebuild
        ReplicatedGuard.Enter<Long> enter = b.guard().beginEnter(++key);
        source.add(key);
        enter.visible();
        Thread.sleep(5);
      }
      Members.awaitLeased(LEASED_WITHIN, c);
      stop.set(true);
      poller.join();
      System.out.println(
          "written while C was silent "
              + writtenWhileSilent
              + ", C lapsed "
              + c.lapses()
              + " times, leased checks on C "
              + leasedChecks.sum());
      assertThat(falseNegatives.sum()).isZero();
      assertThat(c.lapses()).isPositive();
      for (long k = 1; k <= key; k++) {
        assertThat(c.guard().mightContain(k)).isTrue();
      }
    }
  }
}
