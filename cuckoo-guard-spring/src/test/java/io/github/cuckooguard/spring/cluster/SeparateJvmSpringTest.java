package io.github.cuckooguard.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import io.github.cuckooguard.spring.cluster.SpringMemberProcess.Status;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.h2.engine.SysProperties;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four application instances in separate JVMs ({@link SpringMemberProcess}: a Spring context with
 * {@code @EnableCuckooGuard}, the guarded {@link ClusterUserRepository} over JdbcTemplate and
 * DataSourceTransactionManager, an embedded Hazelcast member bean; lease {@value
 * SpringMemberProcess#LEASE_MILLIS} ms) on one H2 database, served by an H2 TCP server in this JVM;
 * all on 127.0.0.1, Hazelcast on ports 6250-6281, H2 on one of 6282-6289.
 *
 * <p>Writers w1-w3 insert rows through the guarded {@code insert} (a transaction each) and append
 * each id to their key file after the commit (the shadow truth); every process checks every id of
 * every file with its group's guard and a sample with its guarded {@code findById}. w3 is killed
 * with {@code kill -9} in the middle of writes; then the checker c, and after it the writer w2,
 * both full members that own partitions, are each paused with SIGSTOP for {@value #PAUSE_MILLIS} ms
 * (many leases) while the others write on (they wait for the paused member's lease, then go on),
 * and resumed. No process may answer "absent" for a present id; the others must have written during
 * each pause and go on after it; each paused member must lapse, pass through after SIGCONT and
 * answer "absent" again for ids nobody wrote within {@value #RECOVER_SECONDS} s.
 *
 * <p>Broken variants tried (temporarily, in cuckoo-guard-hazelcast; see the README for figures): a
 * group that ignores its lease and lapses fails this test (hundreds of false negatives), and so
 * does a guarded add that does not wait for the group (a few).
 */
class SeparateJvmSpringTest {

  static final int FIRST_PORT = 6250;
  static final int PORTS = 8;
  static final int BLOCKS = 4; // 6250-6281
  static final int FIRST_H2_PORT = 6282; // 6282-6289
  static final int H2_PORTS = 8;
  static final long PAUSE_MILLIS = 2_000;
  static final long RECOVER_SECONDS = 20;

  @TempDir Path dir;
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private Server h2;
  private Connection keepOpen;

  @AfterEach
  void stopAll() throws Exception {
    Files.writeString(dir.resolve("stop"), "");
    for (Process p : processes.values()) {
      p.destroyForcibly(); // SIGKILL also ends a stopped process
      p.waitFor(10, TimeUnit.SECONDS);
    }
    if (h2 != null) {
      h2.stop();
    }
    if (keepOpen != null) {
      keepOpen.close();
    }
  }

  private Status status(String name) throws IOException {
    return Status.read(dir.resolve("status-" + name + ".txt"));
  }

  private void await(String what, long seconds, String name, Predicate<Status> condition)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.test(status(name))) {
      assertThat(System.nanoTime() - deadline)
          .as(what + " within " + seconds + " s; " + name + ": " + status(name) + ", log " + dir)
          .isNegative();
      Thread.sleep(20);
    }
  }

  /** An H2 TCP server on 127.0.0.1 serving an in-memory database with the table users. */
  private String startDatabase() throws SQLException {
    assertThat(SysProperties.BIND_ADDRESS)
        .as("h2.bindAddress (the pom sets it): H2's server listens on loopback only")
        .isEqualTo(InetAddress.getLoopbackAddress().getHostAddress());
    String db = "cg-jvms-" + UUID.randomUUID();
    keepOpen = DriverManager.getConnection("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1", "sa", "");
    try (Statement s = keepOpen.createStatement()) {
      s.execute("create table users(id bigint primary key, name varchar(100))");
    }
    int first = FIRST_H2_PORT + ThreadLocalRandom.current().nextInt(H2_PORTS);
    SQLException last = null;
    for (int i = 0; i < H2_PORTS; i++) {
      int port = FIRST_H2_PORT + (first - FIRST_H2_PORT + i) % H2_PORTS;
      try {
        h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-tcpDaemon").start();
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + db;
      } catch (SQLException e) { // port taken
        last = e;
      }
    }
    throw last;
  }

  /**
   * The class path of a member JVM: this JVM's module path and class path, all on the class path.
   */
  private static String memberClassPath() {
    String modulePath = System.getProperty("jdk.module.path");
    String classPath = System.getProperty("java.class.path");
    return modulePath == null || modulePath.isEmpty()
        ? classPath
        : classPath + File.pathSeparator + modulePath;
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void killedWriterAndPausedMembersLeaveNoFalseNegatives() throws Exception {
    long t0 = System.nanoTime();
    String url = startDatabase();
    String cluster = "cuckoo-guard-spring-jvms-" + UUID.randomUUID();
    int basePort = FIRST_PORT + PORTS * ThreadLocalRandom.current().nextInt(BLOCKS);
    String classPath = memberClassPath();
    for (String name : new String[] {"w1", "w2", "w3", "c"}) {
      processes.put(
          name,
          new ProcessBuilder(
                  MemberJvms.javaCommand(
                      classPath,
                      SpringMemberProcess.class,
                      cluster,
                      Integer.toString(basePort),
                      Integer.toString(PORTS),
                      dir.toString(),
                      name,
                      name.startsWith("w") ? "writer" : "checker",
                      url))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve(name + ".log").toFile())
              .start());
    }
    for (String name : processes.keySet()) { // joined, rebuilt and answering "absent"
      await("started", 90, name, s -> s.lastAbsentAnswerMillis() > 0);
    }
    long started = System.nanoTime();
    long startupSeconds = TimeUnit.NANOSECONDS.toSeconds(started - t0);
    Files.writeString(dir.resolve("go"), "");
    await("w3 writes", 30, "w3", s -> s.written() >= 300);

    MemberJvms.kill9(processes.get("w3")); // in the middle of its writes
    Status w3 = status("w3");
    long w1AtKill = status("w1").written();
    long w2AtKill = status("w2").written();
    await("w1 writes on", 40, "w1", s -> s.written() >= w1AtKill + 300);
    await("w2 writes on", 40, "w2", s -> s.written() >= w2AtKill + 300);

    Pause cPause = pause("c", "w1", "w2");
    Pause w2Pause = pause("w2", "w1");

    // Every checker reads every key once more, after both pauses and recoveries.
    long settled = System.currentTimeMillis();
    for (String name : new String[] {"w1", "w2", "c"}) {
      await("a last round of " + name, 30, name, s -> s.lastRoundStartMillis() > settled);
    }
    Status cs = status("c");
    Status w1 = status("w1");
    Status w2 = status("w2");
    System.out.printf(
        "SeparateJvmSpringTest: %d s to start 4 JVMs; written w1 %d, w2 %d, w3 %d (killed after);"
            + " failed writes w1 %d, w2 %d; slowest insert w1 %d ms, w2 %d ms; guard checks w1 %d,"
            + " w2 %d, w3 %d, c %d; false negatives w1 %d, w2 %d, w3 %d, c %d; guarded finds w1"
            + " %d, w2 %d, c %d, null for present rows w1 %d, w2 %d, c %d; %d s from start, %d s"
            + " of writes%n  pause of c: %s%n  pause of w2: %s%n",
        startupSeconds,
        w1.written(),
        w2.written(),
        w3.written(),
        w1.failedWrites(),
        w2.failedWrites(),
        w1.slowestWriteMillis(),
        w2.slowestWriteMillis(),
        w1.checked(),
        w2.checked(),
        w3.checked(),
        cs.checked(),
        w1.falseNegatives(),
        w2.falseNegatives(),
        w3.falseNegatives(),
        cs.falseNegatives(),
        w1.finds(),
        w2.finds(),
        cs.finds(),
        w1.findFalseNegatives(),
        w2.findFalseNegatives(),
        cs.findFalseNegatives(),
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0),
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
        cPause,
        w2Pause);
    long keys = w1.written() + w2.written() + w3.written();
    for (Status s : new Status[] {w1, w2, w3, cs}) {
      assertThat(s.falseNegatives()).as("false negatives, log " + dir).isZero();
      assertThat(s.findFalseNegatives()).as("guarded finds null for present rows").isZero();
    }
    for (Pause pause : new Pause[] {cPause, w2Pause}) {
      assertThat(pause.partitionsOwned()).as("partitions owned when paused: " + pause).isPositive();
      assertThat(pause.writtenMeanwhile()).as("writes during the pause: " + pause).isPositive();
      assertThat(pause.lapsed()).as("its lease ran out while paused: " + pause).isTrue();
      assertThat(pause.passedThroughAfter()).as("passed through after SIGCONT: " + pause).isTrue();
    }
    for (Status s : new Status[] {w1, w2, cs}) {
      assertThat(s.checked()).as("checks (floor: every key once)").isGreaterThanOrEqualTo(keys);
      assertThat(s.finds()).as("guarded finds").isPositive();
    }
  }

  /**
   * What a pause showed: the partitions the paused member owned, the rows the others wrote while it
   * was stopped, whether its lease lapsed and it passed through after SIGCONT, how long after
   * SIGCONT it answered "absent" again, and for how long each other live member passed through
   * between the SIGSTOP and the SIGCONT.
   */
  record Pause(
      String name,
      long partitionsOwned,
      long writtenMeanwhile,
      boolean lapsed,
      boolean passedThroughAfter,
      long recoveredMillis,
      Map<String, Long> othersPassThroughMillis) {}

  /**
   * Stops {@code name} with SIGSTOP for {@value #PAUSE_MILLIS} ms while {@code writers} write on,
   * resumes it, and waits until it has answered "absent" again, has read every key once more, and
   * (it and) the writers have written again.
   */
  private Pause pause(String name, String... writers) throws Exception {
    Status before = status(name);
    Map<String, Long> atStop = new LinkedHashMap<>();
    for (String w : writers) {
      atStop.put(w, status(w).written());
    }
    Map<String, Long> othersPassThroughAtStop = new LinkedHashMap<>();
    for (String other : others(name)) {
      othersPassThroughAtStop.put(other, status(other).passThroughMillis());
    }
    Process process = processes.get(name);
    MemberJvms.signal(process, "-STOP");
    Thread.sleep(PAUSE_MILLIS); // what is measured: the writers go on meanwhile
    long meanwhile = 0;
    Map<String, Long> atCont = new LinkedHashMap<>();
    for (String w : writers) {
      Status s = status(w);
      atCont.put(w, s.written());
      meanwhile += s.written() - atStop.get(w);
    }
    Map<String, Long> othersPassThroughMillis = new LinkedHashMap<>();
    for (String other : others(name)) {
      othersPassThroughMillis.put(
          other, status(other).passThroughMillis() - othersPassThroughAtStop.get(other));
    }
    long resumed = System.currentTimeMillis();
    MemberJvms.signal(process, "-CONT");
    // A round that began after the resume read every key written while it was stopped.
    await(
        name + " checks every key after SIGCONT",
        30,
        name,
        s -> s.lastRoundStartMillis() > resumed);
    await(
        name + " answers 'absent' again",
        RECOVER_SECONDS,
        name,
        s -> s.lastAbsentAnswerMillis() > resumed);
    long recoveredMillis = status(name).lastAbsentAnswerMillis() - resumed;
    await(
        "a second round of " + name,
        30,
        name,
        s -> s.lastRoundStartMillis() > resumed + recoveredMillis);
    long writtenByPaused = status(name).written();
    if (before.written() > 0) {
      await(name + " writes after SIGCONT", 30, name, s -> s.written() >= writtenByPaused + 50);
    }
    for (String w : writers) {
      await(w + " writes after SIGCONT", 30, w, s -> s.written() >= atCont.get(w) + 50);
    }
    Status after = status(name);
    return new Pause(
        name,
        before.partitionsOwned(),
        meanwhile,
        after.lapses() > before.lapses(),
        after.lastPassThroughMillis() > resumed,
        recoveredMillis,
        othersPassThroughMillis);
  }

  /** The members other than {@code name} that are alive. */
  private List<String> others(String name) {
    List<String> others = new ArrayList<>();
    for (Map.Entry<String, Process> e : processes.entrySet()) {
      if (!e.getKey().equals(name) && e.getValue().isAlive()) {
        others.add(e.getKey());
      }
    }
    return others;
  }
}
