package io.github.cuckooguard.cluster.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer-dump join cut by {@code kill -9} in the middle of the stream, with separate member JVMs on
 * 127.0.0.1 ({@link WritingMember}: three processes writing and checking; their key files are the
 * shadow truth, a complete line is a key whose enter began everywhere).
 *
 * <ul>
 *   <li>The serving peer killed: {@value #SEEDED} keys at the source from the start, then the
 *       writers' keys; this JVM joins as the fourth member, in small pieces, and kills the process
 *       serving its dump at its 20th piece (from its piece hook, so the kill lands in the stream,
 *       not before or after it). It must answer "absent" for no key of the truth, probed
 *       continuously while it joins and after, complete its join (from another peer's dump or its
 *       KeySource) within a bound, and the survivors must keep writing.
 *   <li>The joiner killed: a fourth process joins slowly (it sleeps after each piece) and is killed
 *       mid-stream. The serving member must drop the dead joiner's session (each pins a copy of the
 *       filter) once Hazelcast removes it, long before the idle expiry, and the survivors' writes
 *       must not wait longer than a lease for it.
 * </ul>
 *
 * <p>Ports: {@link Members#nextBasePort()} ({@code -Dcuckoo.test.hazelcast.port}).
 */
class KilledMidDumpStreamTest {

  /** Bytes per dump piece: the ~0.8 MiB dump of the members' guard takes about 200 messages. */
  private static final int PIECE_BYTES = 4 * 1024;

  private static final int KILL_AT_PIECE = 20;

  /** Keys at the source before the members start (the first one's bootstrap scan takes them). */
  private static final int SEEDED = 50_000;

  private static final long SEED_BASE = 1L << 50;

  /** Joining bound once the serving peer is gone: Hazelcast's removal plus a fresh JOIN. */
  private static final long JOIN_BOUND_SECONDS = 45;

  /** Ack timeout 500 + lease 1,000 x 1.02 + 10 ms, with room for a loaded machine. */
  private static final long LEASE_WAIT_BOUND_MILLIS = 5_000;

  /** A dead joiner's session must go with Hazelcast's removal, well before this idle expiry. */
  private static final long SESSION_GONE_BOUND_SECONDS = DumpServer.IDLE_MILLIS / 1_000 / 2;

  @TempDir Path dir;
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final Map<String, Member> memberOf = new LinkedHashMap<>();
  private final String cluster = "cuckoo-guard-killdump-" + UUID.randomUUID();
  private final int basePort = Members.nextBasePort();
  private HazelcastInstance here;
  private HazelcastGuardGroup<Long> joiner;

  @AfterEach
  void stop() throws IOException {
    Files.writeString(dir.resolve("stop"), "");
    processes.values().forEach(Process::destroyForcibly);
    if (joiner != null) {
      joiner.close();
    }
    if (here != null) {
      here.getLifecycleService().terminate();
    }
  }

  @Test
  @Timeout(90)
  void servingPeerKilledMidStreamJoinerNeverAnswersAbsentAndCompletes() throws Exception {
    StringBuilder seed = new StringBuilder();
    for (long k = 1; k <= SEEDED; k++) { // at the source before any member: p1 scans them
      seed.append(SEED_BASE + k).append(";\n");
    }
    Files.writeString(dir.resolve("keys-seed.txt"), seed);
    startThreeWriters();
    Files.writeString(dir.resolve("go"), "");
    Thread.sleep(2_000); // some keys before the join

    AtomicInteger scans = new AtomicInteger();
    AtomicBoolean killed = new AtomicBoolean();
    AtomicReference<String> killedName = new AtomicReference<>();
    AtomicLong killedAt = new AtomicLong();
    Map<UUID, Integer> piecesFrom = new ConcurrentHashMap<>();
    AtomicReference<Exception> killFailure = new AtomicReference<>();
    long joinStart = System.nanoTime();
    joiner =
        Members.group(
            here,
            action -> {
              scans.incrementAndGet();
              WritingMember.presentKeys(dir).forEach(action);
            },
            Members.LEASE,
            true,
            b ->
                b.dumpPieceBytes(PIECE_BYTES)
                    .dumpPieceListener(
                        (peer, pieces) -> {
                          piecesFrom.merge(peer.getUuid(), 1, Integer::sum);
                          if (pieces == KILL_AT_PIECE && killed.compareAndSet(false, true)) {
                            String name = nameOf(peer);
                            killedName.set(name);
                            try {
                              kill9(name); // the serving peer, mid-stream
                            } catch (Exception e) {
                              killFailure.set(e);
                            }
                            killedAt.set(System.nanoTime());
                          }
                        }));
    AtomicBoolean stopProbing = new AtomicBoolean();
    LongAdder probes = new LongAdder();
    LongAdder falseNegatives = new LongAdder();
    List<Long> wrong = new ArrayList<>();
    Thread prober =
        new Thread(
            () -> {
              while (!stopProbing.get()) {
                try {
                  for (long key : WritingMember.presentKeys(dir)) { // in the truth before the probe
                    probes.increment();
                    if (!joiner.guard().mightContain(key)) {
                      falseNegatives.increment();
                      synchronized (wrong) {
                        if (wrong.size() < 20) {
                          wrong.add(key);
                        }
                      }
                    }
                  }
                } catch (IOException | RuntimeException e) {
                  // a file being appended to: read again
                }
              }
            },
            "prober");
    prober.start();

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(JOIN_BOUND_SECONDS);
    while (!(killedAt.get() != 0 && joiner.mayAnswerAbsent())) { // leased after the kill
      assertThat(System.nanoTime() - deadline)
          .as("joined within %d s; pieces %s, killed %s", JOIN_BOUND_SECONDS, piecesFrom, killed)
          .isNegative();
      Thread.sleep(5);
    }
    long joinMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joinStart);
    long afterKillMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt.get());
    assertThat(killFailure.get()).as("kill -9 of the serving peer").isNull();
    List<String> survivors = new ArrayList<>(memberOf.keySet());
    survivors.remove(killedName.get());
    long writtenAtJoin = written(survivors);
    Thread.sleep(2_000); // probing the joined member while the survivors write on
    long writtenAfter = written(survivors);
    stopProbing.set(true);
    prober.join(10_000);
    Files.writeString(dir.resolve("stop"), "");
    Thread.sleep(200);

    List<Long> present = WritingMember.presentKeys(dir);
    long finalAbsent = present.stream().filter(k -> !joiner.guard().mightContain(k)).count();
    StringBuilder survivorsSummary = new StringBuilder();
    long survivorFalseNegatives = 0;
    for (String name : survivors) {
      long[] r = report(memberOf.get(name));
      survivorFalseNegatives += r[3];
      survivorsSummary.append(
          String.format(
              "%s written %d, slowest enter %d ms, false negatives %d; ",
              name, r[1], TimeUnit.NANOSECONDS.toMillis(r[2]), r[3]));
    }
    String summary =
        String.format(
            "serving peer %s killed at piece %d; pieces per peer %s; join %d ms (%d ms after the"
                + " kill), from %s; present keys %d, probes %d, false negatives %d (final %d); "
                + "survivors wrote %d in 2 s after the join; %s",
            killedName.get(),
            KILL_AT_PIECE,
            piecesFrom.values(),
            joinMillis,
            afterKillMillis,
            joiner.peerDumpsLoaded() > 0 ? "a peer's dump" : scans.get() + " KeySource scan(s)",
            present.size(),
            probes.sum(),
            falseNegatives.sum(),
            finalAbsent,
            writtenAfter - writtenAtJoin,
            survivorsSummary);
    System.out.println("KilledMidDumpStreamTest: " + summary);
    assertThat(falseNegatives.sum())
        .as("joiner's false negatives (first: %s); %s", wrong, summary)
        .isZero();
    assertThat(finalAbsent).as(summary).isZero();
    assertThat(survivorFalseNegatives).as(summary).isZero();
    assertThat(probes.sum()).as(summary).isGreaterThan(10L * present.size());
    assertThat(joiner.peerDumpsLoaded() > 0 || scans.get() > 0)
        .as("completed from another peer's dump or its KeySource; " + summary)
        .isTrue();
    assertThat(piecesFrom.get(memberOf.get(killedName.get()).getUuid()))
        .as("the killed peer was mid-stream; " + summary)
        .isEqualTo(KILL_AT_PIECE);
    assertThat(writtenAfter)
        .as("the cluster keeps writing; " + summary)
        .isGreaterThan(writtenAtJoin + 50);
  }

  @Test
  @Timeout(90)
  void joinerKilledMidStreamLeavesNoSessionAndDoesNotBlockWrites() throws Exception {
    startThreeWriters();
    Files.writeString(dir.resolve("go"), "");
    Thread.sleep(1_000);
    launch("p4", 0, PIECE_BYTES, 50); // ~200 pieces, 50 ms each: a stream of about 10 s
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(dir.resolve("streaming-p4"))) {
      assertThat(System.nanoTime() - deadline).as("p4 streaming a dump").isNegative();
      assertThat(processes.get("p4").isAlive()).as("p4 alive; see p4.log").isTrue();
      Thread.sleep(20);
    }
    Thread.sleep(300); // a few pieces in
    int sessionsMidStream = openSessions();
    long writtenAtKill = written(memberOf.keySet());
    long killNanos = System.nanoTime();
    kill9("p4");
    int sessions = sessionsMidStream;
    long goneDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SESSION_GONE_BOUND_SECONDS);
    while (sessions != 0 && System.nanoTime() - goneDeadline < 0) {
      Thread.sleep(50);
      sessions = openSessions();
    }
    long sessionGoneMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killNanos);
    Thread.sleep(2_000);
    long writtenAfter = written(memberOf.keySet());
    Files.writeString(dir.resolve("stop"), "");
    Thread.sleep(200);

    List<Long> present = WritingMember.presentKeys(dir);
    long[] keys = present.stream().mapToLong(Long::longValue).toArray();
    StringBuilder summary =
        new StringBuilder(
            String.format(
                "p4 killed mid-stream with %d session(s) open; sessions open %d after %d ms;"
                    + " written %d by the kill, %d after; present keys %d; ",
                sessionsMidStream,
                sessions,
                sessionGoneMillis,
                writtenAtKill,
                writtenAfter,
                present.size()));
    long falseNegatives = 0;
    long slowestMillis = 0;
    for (Map.Entry<String, Member> e : memberOf.entrySet()) {
      long[] absent =
          here.getExecutorService("probe")
              .submitToMember(new MemberProcess.Probe(keys), e.getValue())
              .get(30, TimeUnit.SECONDS);
      long[] r = report(e.getValue());
      falseNegatives += absent.length - 1 + r[3];
      slowestMillis = Math.max(slowestMillis, TimeUnit.NANOSECONDS.toMillis(r[2]));
      summary.append(
          String.format(
              "%s slowest enter %d ms, false negatives %d + %d; ",
              e.getKey(), TimeUnit.NANOSECONDS.toMillis(r[2]), r[3], absent.length - 1));
    }
    System.out.println("KilledMidDumpStreamTest: " + summary);
    assertThat(sessionsMidStream).as("a server held p4's session; " + summary).isEqualTo(1);
    assertThat(sessions).as("p4's session dropped after its removal; " + summary).isZero();
    assertThat(falseNegatives).as(summary.toString()).isZero();
    assertThat(writtenAfter).as("writes went on; " + summary).isGreaterThan(writtenAtKill + 50);
    assertThat(slowestMillis)
        .as("no write waited beyond a lease; " + summary)
        .isLessThan(LEASE_WAIT_BOUND_MILLIS);
  }

  /** p1, p2, p3, each a writing member; this JVM is a member without a guard (grants any lease). */
  private void startThreeWriters() throws Exception {
    here = Hazelcast.newHazelcastInstance(Members.config(cluster, basePort));
    List<Member> known = new ArrayList<>();
    for (String name : List.of("p1", "p2", "p3")) { // one at a time, to know each by name
      launch(name, 0, 0, 0);
      awaitMembers(known.size() + 2, 60);
      Member m =
          here.getCluster().getMembers().stream()
              .filter(x -> !x.localMember() && !known.contains(x))
              .findFirst()
              .orElseThrow();
      known.add(m);
      memberOf.put(name, m);
    }
    for (Member m : known) {
      awaitLeased(m, 60);
    }
  }

  private void launch(String name, long scanDelayMillis, int pieceBytes, long pieceSleepMillis)
      throws IOException {
    processes.put(
        name,
        WritingMember.launch(
            dir,
            cluster,
            basePort,
            name,
            Long.toString(scanDelayMillis),
            Integer.toString(pieceBytes),
            Long.toString(pieceSleepMillis)));
  }

  private void awaitMembers(int count, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (here.getCluster().getMembers().size() < count) {
      assertThat(System.nanoTime() - deadline)
          .as(count + " members in " + seconds + " s")
          .isNegative();
      processes.forEach((n, p) -> assertThat(p.isAlive()).as(n + " alive").isTrue());
      Thread.sleep(50);
    }
  }

  private void awaitLeased(Member member, long seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (report(member)[0] != 1) {
      assertThat(System.nanoTime() - deadline).as(member + " leased").isNegative();
      Thread.sleep(50);
    }
  }

  private long[] report(Member member) throws Exception {
    return here.getExecutorService("probe")
        .submitToMember(new WritingMember.Report(), member)
        .get(30, TimeUnit.SECONDS);
  }

  private long written(Iterable<String> names) throws Exception {
    long sum = 0;
    for (String name : names) {
      sum += report(memberOf.get(name))[1];
    }
    return sum;
  }

  /** Dump sessions open on p1..p3 together. */
  private int openSessions() throws Exception {
    int sum = 0;
    for (Member m : memberOf.values()) {
      sum +=
          here.getExecutorService("probe")
              .submitToMember(new WritingMember.OpenDumpSessions(), m)
              .get(30, TimeUnit.SECONDS);
    }
    return sum;
  }

  private String nameOf(Member peer) {
    return memberOf.entrySet().stream()
        .filter(e -> e.getValue().getUuid().equals(peer.getUuid()))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow(() -> new AssertionError("not a writing member: " + peer));
  }

  private void kill9(String name) throws Exception {
    MemberJvms.kill9(processes.get(name));
  }
}
