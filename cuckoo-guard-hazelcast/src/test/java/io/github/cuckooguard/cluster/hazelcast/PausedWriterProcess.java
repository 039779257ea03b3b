package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.spi.GroupUnavailableException;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * The writer of {@link PausedWriterTest}, in its own JVM: writes keys 1, 2, 3, … through its group
 * and appends each to the source file only after its enter returned and a commit delay passed (the
 * file is the shadow truth; the delay, like a transaction's time between its flush and its commit,
 * makes it likely that the pause falls between an acknowledged enter and its key becoming visible),
 * until killed. An iteration longer than 2.5 s is taken as the pause (SIGSTOP); from then on it
 * counts what happened to its writes. Every 50 ms it writes {@code written failed writtenAfterPause
 * failedAfterPause members} to the status file. Arguments: cluster name, base port, source file,
 * status file, minimum members, commit delay in milliseconds.
 */
public final class PausedWriterProcess {

  private PausedWriterProcess() {}

  public static void main(String[] args) throws Exception {
    String cluster = args[0];
    int basePort = Integer.parseInt(args[1]);
    Path source = Path.of(args[2]);
    Path status = Path.of(args[3]);
    int minimumMembers = Integer.parseInt(args[4]);
    long commitDelayMillis = Long.parseLong(args[5]);
    Config config = PausedWriterTest.fastFailureDetection(Members.config(cluster, basePort));
    HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
    CuckooGuard<Long> guard =
        CuckooGuard.newBuilder(Funnels.longFunnel())
            .name("ids")
            .expectedInsertions(100_000)
            .fpp(0.001)
            .keySource(action -> PausedWriterTest.readKeys(source).forEach(action))
            .build();
    HazelcastGuardGroup<Long> group =
        HazelcastGuardGroup.newBuilder(member, guard)
            .lease(PausedWriterTest.LEASE)
            .minimumMembers(minimumMembers)
            .join();
    long written = 0;
    long failed = 0;
    long writtenAfter = 0;
    long failedAfter = 0;
    boolean paused = false;
    long last = System.nanoTime();
    long lastStatus = 0;
    for (long key = 1; ; key++) {
      long now = System.nanoTime();
      if (now - last > TimeUnit.MILLISECONDS.toNanos(2_500)) {
        paused = true; // the last iteration took longer than any write waits (lease 0.6 s)
      }
      last = now;
      boolean ok;
      try {
        ReplicatedGuard.Enter<Long> enter = group.guard().beginEnter(key);
        Thread.sleep(commitDelayMillis);
        Files.writeString(source, key + "\n", StandardCharsets.US_ASCII, StandardOpenOption.APPEND);
        enter.visible();
        ok = true;
      } catch (GroupUnavailableException e) {
        ok = false;
        if (failed + failedAfter < 5) {
          System.out.println("write failed: " + e.getMessage());
        }
      }
      if (paused) {
        if (ok) {
          writtenAfter++;
        } else {
          failedAfter++;
        }
      } else if (ok) {
        written++;
      } else {
        failed++;
      }
      long done = System.nanoTime();
      if (done - last > TimeUnit.MILLISECONDS.toNanos(2_500)) {
        paused = true;
      }
      if (done - lastStatus > TimeUnit.MILLISECONDS.toNanos(50)) {
        lastStatus = done;
        Path tmp = status.resolveSibling("status.tmp");
        Files.writeString(
            tmp,
            written
                + " "
                + failed
                + " "
                + writtenAfter
                + " "
                + failedAfter
                + " "
                + member.getCluster().getMembers().size());
        Files.move(
            tmp,
            status,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      }
      Thread.sleep(2);
    }
  }
}
