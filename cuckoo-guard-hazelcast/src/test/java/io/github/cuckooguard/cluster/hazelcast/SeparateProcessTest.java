package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two members in this JVM (A writes, B reads) and one in a child JVM (C), all on 127.0.0.1; the
 * source is a file every member reads its keys from. C is killed with SIGKILL or paused with
 * SIGSTOP past its lease while A writes.
 */
class SeparateProcessTest {

  @TempDir Path dir;
  private Path source;
  private Members members;
  private Process child;
  private HazelcastInstance first;
  private HazelcastGuardGroup<Long> a;
  private HazelcastGuardGroup<Long> b;
  private Member c;

  @BeforeEach
  void start() throws Exception {
    source = Files.createFile(dir.resolve("source.txt"));
    members = new Members();
    first = members.start();
    a = members.group(first, action -> readSource().forEach(action));
    HazelcastInstance second = members.start();
    b = members.group(second, action -> readSource().forEach(action));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(MemberJvms.JVM_FLAGS);
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            MemberProcess.class.getName(),
            members.cluster(),
            Integer.toString(members.basePort()),
            source.toString()));
    child =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (c == null || probe(new long[0])[0] != 1) {
      assertThat(System.nanoTime() - deadline)
          .as("child member joined and leased within 60 s")
          .isNegative();
      assertThat(child.isAlive()).as("child alive; see " + dir.resolve("child.log")).isTrue();
      c =
          first.getCluster().getMembers().stream()
              .filter(m -> !m.getUuid().equals(first.getCluster().getLocalMember().getUuid()))
              .filter(m -> !m.getUuid().equals(second.getCluster().getLocalMember().getUuid()))
              .findFirst()
              .orElse(null);
      Thread.sleep(100);
    }
    Members.awaitLeased(java.time.Duration.ofSeconds(60), a, b);
  }

  @AfterEach
  void stop() {
    if (child != null) {
      child.destroyForcibly();
    }
    members.close();
  }

  private List<Long> readSource() throws IOException {
    return KeyFiles.completeLines(source); // read while the writer appends: see KeyFiles
  }

  private synchronized void makeVisible(long key) throws IOException {
    Files.writeString(source, key + "\n", StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
  }

  private void write(HazelcastGuardGroup<Long> writer, long key) throws Exception {
    ReplicatedGuard.Enter<Long> enter = writer.guard().beginEnter(key);
    makeVisible(key);
    enter.visible();
  }

  /** The keys C answers "definitely absent" for, then 1 if C was leased, else 0. */
  private long[] probe(long[] keys) throws Exception {
    if (c == null) {
      return new long[] {0};
    }
    return first
        .getExecutorService("probe")
        .submitToMember(new MemberProcess.Probe(keys), c)
        .get(30, TimeUnit.SECONDS);
  }

  @Test
  @Timeout(180)
  void memberKilledWithSigkillMidWritesBlocksNoWriterBeyondTheLease() throws Exception {
    AtomicLong next = new AtomicLong();
    AtomicLong slowest = new AtomicLong();
    LongAdder falseNegatives = new LongAdder();
    long stopAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      writers.add(
          new Thread(
              () -> {
                try {
                  while (System.nanoTime() - stopAt < 0) {
                    long key = next.incrementAndGet();
                    long start = System.nanoTime();
                    write(a, key);
                    slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
                    if (!b.guard().mightContain(key)) {
                      falseNegatives.increment();
                    }
                  }
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              }));
    }
    writers.forEach(Thread::start);
    Thread.sleep(1_500);
    long[] before = readSource().stream().mapToLong(Long::longValue).toArray();
    long[] absentOnC = probe(before);
    child.destroyForcibly(); // SIGKILL
    for (Thread t : writers) {
      t.join();
    }
    System.out.println(
        "SIGKILL: writes "
            + next.get()
            + ", slowest enter "
            + TimeUnit.NANOSECONDS.toMillis(slowest.get())
            + " ms, absent on C before the kill "
            + (absentOnC.length - 1)
            + " (leased "
            + absentOnC[absentOnC.length - 1]
            + ")");
    assertThat(absentOnC.length)
        .as("C answered absent for none of " + before.length + " keys")
        .isOne();
    assertThat(falseNegatives.sum()).isZero();
    assertThat(TimeUnit.NANOSECONDS.toMillis(slowest.get())).isLessThan(2_500);
  }

  @Test
  @Timeout(180)
  void memberPausedPastItsLeaseNeverAnswersAbsentForKeysWrittenMeanwhile() throws Exception {
    for (long k = 1; k <= 100; k++) {
      write(a, k);
    }
    assertThat(probe(new long[] {1, 50, 100})).containsExactly(1); // leased, none absent
    signal("-STOP");
    long key = 100;
    long resumeAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_500); // lease 1 s
    while (System.nanoTime() - resumeAt < 0) {
      write(a, ++key);
    }
    long[] writtenWhilePaused = new long[(int) (key - 100)];
    for (int i = 0; i < writtenWhilePaused.length; i++) {
      writtenWhilePaused[i] = 101 + i;
    }
    signal("-CONT");
    long[] firstAnswer = probe(writtenWhilePaused); // the first thing C is asked after it resumes
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long[] all;
    do {
      write(b, ++key);
      long[] keys = new long[(int) key];
      Arrays.setAll(keys, i -> i + 1);
      all = probe(keys);
      assertThat(Arrays.copyOf(all, all.length - 1)).as("absent on C for present keys").isEmpty();
      Thread.sleep(50);
    } while (all[all.length - 1] != 1 && System.nanoTime() - deadline < 0);
    long checkerFalseNegatives =
        first
            .getExecutorService("probe")
            .submitToMember(new MemberProcess.CountFalseNegatives(), c)
            .get(30, TimeUnit.SECONDS);
    System.out.println(
        "SIGSTOP: written while paused "
            + writtenWhilePaused.length
            + ", C's first answer after"
            + " SIGCONT: absent "
            + (firstAnswer.length - 1)
            + ", leased "
            + firstAnswer[firstAnswer.length - 1]
            + "; C leased again: "
            + (all[all.length - 1] == 1)
            + " after "
            + key
            + " keys; false negatives seen by"
            + " C's own checker thread "
            + checkerFalseNegatives);
    assertThat(checkerFalseNegatives).isZero();
    assertThat(writtenWhilePaused.length).isPositive();
    assertThat(Arrays.copyOf(firstAnswer, firstAnswer.length - 1)).isEmpty();
    assertThat(all[all.length - 1]).as("C leased again").isOne();
  }

  private void signal(String which) throws Exception {
    MemberJvms.signal(child, which);
  }
}
