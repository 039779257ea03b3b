package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three member processes on 127.0.0.1, each writing and checking ({@link WritingMember}); the key
 * files are the shadow truth. One is killed with {@code kill -9} in the middle of the writes; then
 * a fourth starts with a slow bootstrap and is killed with {@code kill -9} in the middle of it
 * (after its JOIN was granted, while its rebuild scans). The two survivors must keep writing and
 * answer "definitely absent" for no present key: 0 false negatives, from their own checkers and
 * from a final probe of every key. This JVM joins the cluster as an observer without a guard (it
 * answers "no guard", which grants any lease), to probe the members.
 */
class ThreeProcessTest {

  private static final long LEASE_WAIT_BOUND_MILLIS =
      5_000; // ack 500 + lease 1,000 × 1.02 + 10 ms, on a loaded machine

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final Map<String, Member> memberOf = new LinkedHashMap<>();
  private HazelcastInstance observer;
  private final String cluster = "cuckoo-guard-3p-" + UUID.randomUUID();
  private final int basePort = Members.nextBasePort();

  @AfterEach
  void stop() throws IOException {
    Files.writeString(dir.resolve("stop"), "");
    processes.values().forEach(Process::destroyForcibly);
    if (observer != null) {
      observer.getLifecycleService().terminate();
    }
  }

  private void launch(String name, long scanDelayMillis) throws IOException {
    processes.put(
        name, WritingMember.launch(dir, cluster, basePort, name, Long.toString(scanDelayMillis)));
  }

  private void awaitMembers(int count, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (observer.getCluster().getMembers().size() < count) {
      assertThat(System.nanoTime() - deadline)
          .as(count + " members within " + seconds + " s")
          .isNegative();
      processes.forEach(
          (n, p) ->
              assertThat(p.isAlive()).as(n + " alive; see " + dir.resolve(n + ".log")).isTrue());
      Thread.sleep(50);
    }
  }

  private long[] report(Member member) throws Exception {
    return observer
        .getExecutorService("probe")
        .submitToMember(new WritingMember.Report(), member)
        .get(30, TimeUnit.SECONDS);
  }

  private long[] reportOrNull(Member member) throws InterruptedException {
    try {
      return report(member);
    } catch (Exception e) {
      return null;
    }
  }

  private void awaitLeased(Member member, long seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (report(member)[0] != 1) {
      assertThat(System.nanoTime() - deadline)
          .as(member + " leased within " + seconds + " s")
          .isNegative();
      Thread.sleep(50);
    }
  }

  /** Prints the members' "FALSE NEGATIVE" log lines (WritingMember's checker), if any. */
  private void printFalseNegativeLines() throws IOException {
    try (DirectoryStream<Path> logs = Files.newDirectoryStream(dir, "*.log")) {
      for (Path log : logs) {
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
          if (line.startsWith("FALSE NEGATIVE")) {
            System.out.println(log.getFileName() + ": " + line);
          }
        }
      }
    }
  }

  private void kill9(String name) throws Exception {
    MemberJvms.kill9(processes.get(name));
  }

  private Member newMember(List<Member> known) {
    return observer.getCluster().getMembers().stream()
        .filter(m -> !m.localMember() && !known.contains(m))
        .findFirst()
        .orElseThrow();
  }

  @Test
  @Timeout(180)
  void killedMidWritesAndMidBootstrapNoFalseNegatives() throws Exception {
    observer = Hazelcast.newHazelcastInstance(Members.config(cluster, basePort));
    List<Member> known = new ArrayList<>();
    for (String name :
        List.of("p1", "p2", "p3")) { // one at a time, so each member is known by name
      launch(name, 0);
      awaitMembers(known.size() + 2, 90);
      Member m = newMember(known);
      known.add(m);
      memberOf.put(name, m);
    }
    for (Member m : known) {
      awaitLeased(m, 60);
    }
    Files.writeString(dir.resolve("go"), "");
    Thread.sleep(2_000);

    long[] p3BeforeKill = report(memberOf.get("p3"));
    kill9("p3"); // in the middle of writes: p3's own writer and the others' enters to it
    long writtenAtKill = report(memberOf.get("p1"))[1] + report(memberOf.get("p2"))[1];
    Thread.sleep(3_000);
    long writtenAfterKill = report(memberOf.get("p1"))[1] + report(memberOf.get("p2"))[1];

    launch("p4", 3_000); // its rebuild sleeps 3 s before it scans: kill it there
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!Files.exists(dir.resolve("scanning-p4"))) {
      assertThat(System.nanoTime() - deadline).as("p4 began its bootstrap").isNegative();
      assertThat(processes.get("p4").isAlive())
          .as("p4 alive; see " + dir.resolve("p4.log"))
          .isTrue();
      Thread.sleep(20);
    }
    Member p4 =
        observer.getCluster().getMembers().stream()
            .filter(m -> !m.localMember() && !memberOf.containsValue(m))
            .findFirst()
            .orElse(null);
    long[] p4Report = p4 == null ? null : reportOrNull(p4);
    kill9("p4"); // granted its JOIN everywhere, rebuilding: the others may hold a grant for it
    long writtenAtSecondKill = report(memberOf.get("p1"))[1] + report(memberOf.get("p2"))[1];
    Thread.sleep(3_000);
    Files.writeString(dir.resolve("stop"), "");
    Thread.sleep(200);

    List<Long> present = WritingMember.presentKeys(dir);
    printFalseNegativeLines(); // what the members logged of any, before the assertions below
    long[] keys = present.stream().mapToLong(Long::longValue).toArray();
    long totalFalseNegatives = 0;
    StringBuilder summary = new StringBuilder();
    for (String name : List.of("p1", "p2")) {
      Member m = memberOf.get(name);
      awaitLeased(m, 30);
      long[] absent =
          observer
              .getExecutorService("probe")
              .submitToMember(new MemberProcess.Probe(keys), m)
              .get(30, TimeUnit.SECONDS);
      long[] r = report(m);
      assertThat(absent.length - 1).as(name + " answers absent for present keys").isZero();
      assertThat(r[3]).as(name + "'s checker saw false negatives").isZero();
      assertThat(r[4]).as(name + "'s checker ran").isGreaterThan(present.size());
      assertThat(TimeUnit.NANOSECONDS.toMillis(r[2]))
          .as(name + "'s slowest enter")
          .isLessThan(LEASE_WAIT_BOUND_MILLIS);
      totalFalseNegatives += r[3] + absent.length - 1;
      summary.append(
          String.format(
              "%s: written %d, slowest enter %d ms, checks %d, false negatives %d; ",
              name, r[1], TimeUnit.NANOSECONDS.toMillis(r[2]), r[4], r[3]));
    }
    long writtenAtEnd = report(memberOf.get("p1"))[1] + report(memberOf.get("p2"))[1];
    System.out.println(
        "three processes: present keys "
            + present.size()
            + "; p3 before kill -9: written "
            + p3BeforeKill[1]
            + ", false negatives "
            + p3BeforeKill[3]
            + "; p4 killed mid-bootstrap, leased then "
            + (p4Report == null ? "unknown" : p4Report[0])
            + "; "
            + summary
            + "total false negatives "
            + totalFalseNegatives);
    assertThat(p3BeforeKill[3]).isZero();
    assertThat(p4Report).as("p4 was a member when killed").isNotNull();
    assertThat(p4Report[0]).as("p4 was not complete yet when killed").isZero();
    assertThat(writtenAfterKill)
        .as("writes went on after the kill mid-writes")
        .isGreaterThan(writtenAtKill + 50);
    assertThat(writtenAtEnd)
        .as("writes went on after the kill mid-bootstrap")
        .isGreaterThan(writtenAtSecondKill + 50);
  }
}
