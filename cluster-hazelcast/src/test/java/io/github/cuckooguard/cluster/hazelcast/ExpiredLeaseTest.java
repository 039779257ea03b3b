package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member whose lease runs out without it noticing: its renewal thread does not run (a long GC, a
 * starved scheduler) and its executor cannot apply the writers' begins, while its readers keep
 * asking. Nothing makes it lapse, so its filter stays "complete" and lacks the keys written
 * meanwhile; the only thing between its readers and a false negative is the lease's expiry on its
 * own clock. A variant that answers "absent" on a complete filter without checking the lease fails
 * here (the local filter lacks the new keys, which this test asserts, so the check is not vacuous).
 */
class ExpiredLeaseTest {

  @Test
  @Timeout(120)
  void memberWhoseLeaseRanOutPassesThroughAlthoughItNeverLapsed() throws Exception {
    Set<Long> source = ConcurrentHashMap.newKeySet();
    try (Members members = new Members()) {
      HazelcastInstance first = members.start();
      HazelcastGuardGroup<Long> a = members.group(first, source);
      HazelcastGuardGroup<Long> b = members.group(members.start(), source);
      HazelcastInstance third = members.start();
      HazelcastGuardGroup<Long> c = members.group(third, source);
      Members.awaitLeased(Duration.ofSeconds(30), a, b, c);
      long key = 0;
      while (key < 100) {
        write(a, source, ++key);
      }
      long lapsesBefore = c.lapses();

      LongAdder falseNegatives = new LongAdder();
      LongAdder locallyAbsent = new LongAdder();
      AtomicBoolean stop = new AtomicBoolean();
      Thread reader = new Thread(() -> {   // C's readers: every present key, again and again
        while (!stop.get()) {
          for (Long k : source) {
            if (!c.guard().mightContain(k)) {
              falseNegatives.increment();
            }
          }
        }
      }, "reader-on-C");
      reader.start();

      c.renewalsPaused = true;
      HazelcastGuardGroupTest.Stall.release = new CountDownLatch(1);
      Member cMember = third.getCluster().getLocalMember();
      for (int i = 0; i < Members.EXECUTOR_THREADS; i++) {
        first.getExecutorService("cuckoo-guard").submitToMember(new HazelcastGuardGroupTest.Stall(), cMember);
      }
      long firstUnseen = key + 1;
      long until = System.nanoTime() + 2 * Members.LEASE.toNanos();
      while (System.nanoTime() - until < 0) {
        write(System.nanoTime() % 2 == 0 ? a : b, source, ++key);   // waits out C's lease once, then skips C
      }
      long lastUnseen = key;
      for (long k = firstUnseen; k <= lastUnseen; k++) {
        if (!c.guard().local().mightContain(k)) {
          locallyAbsent.increment();
        }
      }
      boolean leasedWhilePaused = c.mayAnswerAbsent();
      long lapsesWhilePaused = c.lapses() - lapsesBefore;

      HazelcastGuardGroupTest.Stall.release.countDown();
      c.renewalsPaused = false;   // C now finds its lease gone, lapses, rejoins and rebuilds
      Members.awaitLeased(Duration.ofSeconds(30), c);
      for (int i = 0; i < 50; i++) {
        write(b, source, ++key);
      }
      stop.set(true);
      reader.join();

      System.out.println("written while C's lease ran out: " + (lastUnseen - firstUnseen + 1) + ", of them absent"
          + " from C's own filter " + locallyAbsent.sum() + "; C leased meanwhile " + leasedWhilePaused
          + ", lapses meanwhile " + lapsesWhilePaused + "; false negatives on C " + falseNegatives.sum());
      assertThat(falseNegatives.sum()).isZero();
      assertThat(lapsesWhilePaused).as("C did not notice by itself").isZero();
      assertThat(leasedWhilePaused).isFalse();
      assertThat(locallyAbsent.sum()).as("C's filter lacks keys written meanwhile: only the lease protected them")
          .isGreaterThan((lastUnseen - firstUnseen + 1) / 2);
      assertThat(c.lapses()).isGreaterThan(lapsesBefore);
      for (long k = 1; k <= key; k++) {
        assertThat(c.guard().mightContain(k)).isTrue();
        assertThat(c.guard().local().mightContain(k)).as("rebuilt after rejoining").isTrue();
      }
    }
  }

  private static void write(HazelcastGuardGroup<Long> writer, Set<Long> source, long key) throws Exception {
    ReplicatedGuard.Enter<Long> enter = writer.guard().beginEnter(key);
    source.add(key);
    enter.visible();
  }
}
