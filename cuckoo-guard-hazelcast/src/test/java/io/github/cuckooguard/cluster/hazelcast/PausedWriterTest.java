package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer paused longer than Hazelcast's failure detection: readers A and B in this JVM, the
 * writer W in its own JVM (SIGSTOP, then SIGCONT), all on 127.0.0.1 with a 3 s failure detection. A
 * and B remove W and renew each other; when W resumes, its view still has them, then it is alone.
 * W's writes must fail (or wait) rather than become visible while A and B answer "absent" for them:
 * A and B check every key of the source (the shadow truth) again and again.
 *
 * <p>W waits {@value #COMMIT_DELAY_MILLIS} ms between each acknowledged enter and its append, so
 * the pause usually interrupts a write there: A and B lapse while W is stopped, rejoin without it
 * once Hazelcast removed it, and rebuild from a source without that key, which W appends when it
 * resumes. A lapse that ends W's open enters as visible (instead of keeping them in flight) fails
 * here in most runs.
 */
class PausedWriterTest {

  static final Duration LEASE = Duration.ofMillis(600);

  static final long COMMIT_DELAY_MILLIS = 10;

  @TempDir Path dir;
  private Members members;
  private Process writer;

  /** A failure detection of 3 s (heartbeat every second), so the pause can be short. */
  static Config fastFailureDetection(Config config) {
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", "3");
    config.setProperty("hazelcast.heartbeat.failuredetector.type", "deadline");
    return config;
  }

  static List<Long> readKeys(Path source) throws IOException {
    return KeyFiles.completeLines(source); // read while the writer appends: see KeyFiles
  }

  @AfterEach
  void stop() {
    if (writer != null) {
      writer.destroyForcibly();
    }
    if (members != null) {
      members.close();
    }
  }

  private HazelcastGuardGroup<Long> reader(HazelcastInstance member, Path source) {
    return HazelcastGuardGroup.newBuilder(
            member,
            io.github.cuckooguard.CuckooGuard.newBuilder(io.github.cuckooguard.Funnels.longFunnel())
                .name("ids")
                .expectedInsertions(100_000)
                .fpp(0.001)
                .keySource(action -> readKeys(source).forEach(action))
                .build())
        .lease(LEASE)
        .minimumMembers(2)
        .join();
  }

  private long[] status(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new long[5];
    }
    String[] parts = Files.readString(file).trim().split(" ");
    long[] values = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      values[i] = Long.parseLong(parts[i]);
    }
    return values;
  }

  private static long falseNegatives(List<HazelcastGuardGroup<Long>> readers, List<Long> keys) {
    long wrong = 0;
    for (HazelcastGuardGroup<Long> r : readers) {
      for (long k : keys) {
        if (!r.guard().mightContain(k)) {
          wrong++;
        }
      }
    }
    return wrong;
  }

  @Test
  @Timeout(120)
  void writerPausedPastFailureDetectionNeverMakesAKeyVisibleThatOthersAnswerAbsentFor()
      throws Exception {
    Path source = Files.createFile(dir.resolve("source.txt"));
    Path statusFile = dir.resolve("status.txt");
    members = new Members();
    HazelcastInstance aMember =
        com.hazelcast.core.Hazelcast.newHazelcastInstance(
            fastFailureDetection(Members.config(members.cluster(), members.basePort())));
    HazelcastInstance bMember =
        com.hazelcast.core.Hazelcast.newHazelcastInstance(
            fastFailureDetection(Members.config(members.cluster(), members.basePort())));
    HazelcastGuardGroup<Long> a = reader(aMember, source);
    HazelcastGuardGroup<Long> b = reader(bMember, source);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(MemberJvms.JVM_FLAGS);
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            PausedWriterProcess.class.getName(),
            members.cluster(),
            Integer.toString(members.basePort()),
            source.toString(),
            statusFile.toString(),
            Integer.toString(Integer.getInteger("cuckoo.test.writer.minimum", 2)),
            Long.toString(Long.getLong("cuckoo.test.writer.commit.millis", COMMIT_DELAY_MILLIS))));
    writer =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("writer.log").toFile())
            .start();
    List<HazelcastGuardGroup<Long>> readers = List.of(a, b);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (status(statusFile)[0] < 200) {
      assertThat(System.nanoTime() - deadline).as("W wrote 200 keys within 60 s").isNegative();
      assertThat(writer.isAlive()).as("W alive; see " + dir.resolve("writer.log")).isTrue();
      Thread.sleep(50);
    }
    Members.awaitLeased(Duration.ofSeconds(30), a, b);
    long before = falseNegatives(readers, readKeys(source));
    signal("-STOP");
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (aMember.getCluster().getMembers().size() != 2
        || bMember.getCluster().getMembers().size() != 2) {
      assertThat(System.nanoTime() - deadline).as("A and B removed W within 30 s").isNegative();
      Thread.sleep(50);
    }
    Members.awaitLeased(Duration.ofSeconds(30), a, b); // A and B renew each other without W
    String whilePaused = remoteState(a, b);
    int keysAtPause = readKeys(source).size();
    signal("-CONT");
    long wrong = 0;
    long checks = 0;
    long watchUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
    while (System.nanoTime() - watchUntil < 0) {
      List<Long> keys = readKeys(source);
      if (a.mayAnswerAbsent() || b.mayAnswerAbsent()) {
        checks += 2L * keys.size();
      }
      wrong += falseNegatives(readers, keys);
      Thread.sleep(20);
    }
    long[] s = status(statusFile);
    int keysAfter = readKeys(source).size();
    System.out.println(
        "paused writer: keys before the pause "
            + keysAtPause
            + ", after "
            + keysAfter
            + "; W after the pause: written "
            + s[2]
            + ", failed "
            + s[3]
            + ", W's view "
            + s[4]
            + " member(s); checks while leased "
            + checks
            + ", false negatives "
            + wrong
            + " (before the pause "
            + before
            + "); while W was out "
            + whilePaused
            + "; at the end "
            + remoteState(a, b));
    for (String line : Files.readAllLines(dir.resolve("writer.log"))) {
      if (line.startsWith("write failed")) {
        System.out.println("W: " + line);
      }
    }
    assertThat(before).isZero();
    assertThat(s[3]).as("W's writes after the pause failed").isPositive();
    assertThat(checks).as("A and B answered for keys while W was out").isPositive();
    assertThat(wrong).as("present keys A or B answered \"absent\" for").isZero();
    assertThat(s[2]).as("W made no key visible while A and B had removed it").isZero();
  }

  /** Lapses, open remote writes and orphaned enters of A and B: which path ended W's enters. */
  private static String remoteState(HazelcastGuardGroup<Long> a, HazelcastGuardGroup<Long> b) {
    return String.format(
        "A: lapses %d, open %d, orphaned %d; B: lapses %d, open %d, orphaned %d",
        a.lapses(),
        a.openRemoteWrites(),
        a.orphanedRemoteEnters(),
        b.lapses(),
        b.openRemoteWrites(),
        b.orphanedRemoteEnters());
  }

  private void signal(String which) throws Exception {
    Process kill =
        new ProcessBuilder("kill", which, Long.toString(writer.pid())).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }
}
