package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.spi.ReplicatedGuard;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peer-dump joins while enters and leaves are in flight: C's renewals stop for longer than its
 * lease again and again, so it lapses and rejoins from A's or B's snapshot while writers on A and B
 * enter fresh keys and remove earlier ones (a removed key is never entered again). Shadow truth:
 * {@code present} gets a key after its enter began everywhere and before the source does, and loses
 * it after its leave was announced and before the source does; an "absent" answer is a false
 * negative if the key is still in {@code present} after the answer. Seeds fixed per writer.
 */
class RejoinFromPeerDumpsTest {

  /** Lapses and completed rejoins of C per run. */
  private static final int CYCLES = 5;

  @Test
  @Timeout(90)
  void rejoinsFromPeerDumpsWhileEntersAndLeavesAreInFlight() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    Set<Long> present = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastGuardGroup<Long> a = members.group(members.start(), source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      HazelcastGuardGroup<Long> c = members.group(members.start(), source);
      Members.awaitLeased(java.time.Duration.ofSeconds(30), a, b, c);
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder falseNegatives = new LongAdder();
      LongAdder checks = new LongAdder();
      AtomicLong written = new AtomicLong();
      AtomicLong removed = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      List<HazelcastGuardGroup<Long>> writers = List.of(a, b);
      for (int w = 0; w < writers.size(); w++) {
        HazelcastGuardGroup<Long> g = writers.get(w);
        long base = (w + 1L) << 32;
        SplittableRandom rnd = new SplittableRandom(13 + w);
        threads.add(
            new Thread(
                () -> {
                  List<Long> mine = new ArrayList<>();
                  long next = base;
                  while (!stop.get()) {
                    try {
                      long k = ++next;
                      ReplicatedGuard.Enter<Long> enter = g.guard().beginEnter(k);
                      present.add(k);
                      source.add(k);
                      enter.visible();
                      mine.add(k);
                      written.incrementAndGet();
                      if (mine.size() > 20 && rnd.nextInt(3) == 0) {
                        long gone = mine.remove(rnd.nextInt(mine.size()));
                        ReplicatedGuard.Leave<Long> leave = g.guard().beginLeave(gone);
                        present.remove(gone);
                        source.remove(gone);
                        leave.gone();
                        removed.incrementAndGet();
                      }
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      // group unavailable for a moment: the write did not happen
                    }
                  }
                },
                "writer-" + w));
      }
      threads.add(
          new Thread(
              () -> {
                while (!stop.get()) {
                  for (Long k : List.copyOf(present)) {
                    for (HazelcastGuardGroup<Long> g : List.of(a, b, c)) {
                      boolean answer = g.guard().mightContain(k);
                      checks.increment();
                      if (!answer && present.contains(k)) {
                        falseNegatives.increment();
                      }
                    }
                  }
                }
              },
              "reader"));
      threads.forEach(Thread::start);
      long lapses = c.lapses();
      long dumpsBefore = c.peerDumpsLoaded();
      // CYCLES rejoins, each one ended as soon as C is leased again (complete from a dump or, if no
      // peer served one, a scan) instead of after a fixed wait; bounded in time all the same.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      int rejoined = 0;
      while (rejoined < CYCLES && System.nanoTime() - until < 0) {
        c.renewalsPaused = true; // C starved past its lease: lapses, rejoins from a dump
        Thread.sleep(Members.LEASE.toMillis() + 100);
        c.renewalsPaused = false;
        while (!c.mayAnswerAbsent() && System.nanoTime() - until < 0) {
          Thread.sleep(5);
        }
        if (c.mayAnswerAbsent()) {
          rejoined++;
          Thread.sleep(200); // writes and reads go on against the rejoined C
        }
      }
      stop.set(true);
      for (Thread t : threads) {
        t.join(30_000);
      }
      String summary =
          written
              + " written, "
              + removed
              + " removed, "
              + checks
              + " checks, C lapses "
              + (c.lapses() - lapses)
              + ", C dumps loaded "
              + (c.peerDumpsLoaded() - dumpsBefore)
              + ", rejoins completed "
              + rejoined;
      System.out.println("RejoinFromPeerDumpsTest: " + summary);
      assertThat(rejoined).as(summary).isEqualTo(CYCLES);
      assertThat(c.lapses() - lapses).as(summary).isGreaterThan(2);
      assertThat(c.peerDumpsLoaded() - dumpsBefore).as(summary).isGreaterThan(2);
      assertThat(falseNegatives.sum()).as("false negatives; " + summary).isZero();
    }
  }
}
