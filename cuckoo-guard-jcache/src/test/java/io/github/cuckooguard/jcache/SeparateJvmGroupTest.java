package io.github.cuckooguard.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import io.github.cuckooguard.jcache.GuardedCacheMemberProcess.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guarded JCaches over Hazelcast members in separate JVMs ({@link GuardedCacheMemberProcess}, all
 * on 127.0.0.1, ports 6200-6239): writers w1-w3 put keys and append them to their key files after
 * {@code put} returned (the shadow truth); every process checks every key of every file with its
 * own guarded cache. w3 is killed with {@code kill -9} in the middle of writes, then the checker c
 * (a lite member) is paused with SIGSTOP for {@value #PAUSE_MILLIS} ms, many times its lease, while
 * w1 and w2 go on writing, and resumed: no process may answer "absent" for a present key, and c
 * must answer "absent" again for keys nobody wrote within {@value #RECOVER_SECONDS} s.
 */
class SeparateJvmGroupTest {

  static final int FIRST_PORT = 6200;
  static final int PORTS = 8;
  static final long PAUSE_MILLIS = 2_000;
  static final long RECOVER_SECONDS = 20;

  @TempDir Path dir;
  private final Map<String, Process> processes = new LinkedHashMap<>();

  @AfterEach
  void stopAll() throws Exception {
    Files.writeString(dir.resolve("stop"), "");
    for (Process p : processes.values()) {
      p.destroyForcibly(); // SIGKILL also ends a stopped process
      p.waitFor(10, TimeUnit.SECONDS);
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

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void killedWriterAndPausedCheckerLeaveNoFalseNegatives() throws Exception {
    long t0 = System.nanoTime();
    String cluster = "cuckoo-guard-jcache-jvms-" + UUID.randomUUID();
    int basePort = FIRST_PORT + PORTS * ThreadLocalRandom.current().nextInt(5); // 6200-6239
    for (String name : new String[] {"w1", "w2", "w3", "c"}) {
      processes.put(
          name,
          new ProcessBuilder(
                  MemberJvms.javaCommand(
                      GuardedCacheMemberProcess.class,
                      cluster,
                      Integer.toString(basePort),
                      Integer.toString(PORTS),
                      dir.toString(),
                      name,
                      name.startsWith("w") ? "writer" : "checker"))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve(name + ".log").toFile())
              .start());
    }
    for (String name : processes.keySet()) { // joined and answering "absent"
      await("started", 90, name, s -> s.lastAbsentAnswerMillis() > 0);
    }
    long started = System.nanoTime();
    Files.writeString(dir.resolve("go"), "");
    await("w3 writes", 30, "w3", s -> s.written() >= 300);

    MemberJvms.kill9(processes.get("w3")); // in the middle of its writes
    Status w3 = status("w3");
    long w1AtKill = status("w1").written();
    long w2AtKill = status("w2").written();
    await("w1 writes on", 40, "w1", s -> s.written() >= w1AtKill + 300);
    await("w2 writes on", 40, "w2", s -> s.written() >= w2AtKill + 300);

    long w1AtStop = status("w1").written();
    long w2AtStop = status("w2").written();
    Process c = processes.get("c");
    MemberJvms.signal(c, "-STOP");
    Thread.sleep(PAUSE_MILLIS); // what is measured: the writers go on meanwhile
    long writtenWhilePaused = status("w1").written() - w1AtStop + status("w2").written() - w2AtStop;
    long resumed = System.currentTimeMillis();
    MemberJvms.signal(c, "-CONT");
    // A round that began after the resume read every key written while c was stopped.
    await("c checks every key after SIGCONT", 30, "c", s -> s.lastRoundStartMillis() > resumed);
    await(
        "c answers 'absent' again",
        RECOVER_SECONDS,
        "c",
        s -> s.lastAbsentAnswerMillis() > resumed);
    long recoveredMillis = status("c").lastAbsentAnswerMillis() - resumed;
    await(
        "a second round of c", 30, "c", s -> s.lastRoundStartMillis() > resumed + recoveredMillis);

    Status cs = status("c");
    Status w1 = status("w1");
    Status w2 = status("w2");
    System.out.printf(
        "SeparateJvmGroupTest: written w1 %d, w2 %d, w3 %d (killed after); written while c was"
            + " stopped %d ms: %d; checks w1 %d, w2 %d, w3 %d, c %d; false negatives w1 %d, w2 %d,"
            + " w3 %d, c %d; c passed through after SIGCONT: %s; c answered 'absent' again %d ms"
            + " after SIGCONT; %d s from start, %d s of writes%n",
        w1.written(),
        w2.written(),
        w3.written(),
        PAUSE_MILLIS,
        writtenWhilePaused,
        w1.checked(),
        w2.checked(),
        w3.checked(),
        cs.checked(),
        w1.falseNegatives(),
        w2.falseNegatives(),
        w3.falseNegatives(),
        cs.falseNegatives(),
        cs.lastPassThroughMillis() > resumed,
        recoveredMillis,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0),
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    assertThat(writtenWhilePaused).as("writes while c was stopped (no wait for c)").isPositive();
    long keys = w1.written() + w2.written() + w3.written();
    for (Status s : new Status[] {w1, w2, w3, cs}) {
      assertThat(s.falseNegatives()).as("false negatives").isZero();
    }
    for (Status s : new Status[] {w1, w2, cs}) {
      assertThat(s.checked()).as("checks (floor: every key once)").isGreaterThanOrEqualTo(keys);
    }
  }
}
