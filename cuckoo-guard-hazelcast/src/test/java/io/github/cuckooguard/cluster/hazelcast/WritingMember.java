package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import io.github.cuckooguard.cluster.hazelcast.testing.MemberJvms;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A member process started by {@link ThreeProcessTest}: a guard "ids" whose source is a directory
 * of key files, one per member ({@code keys-NAME.txt}, lines {@code KEY;}). A member appends a line
 * only after its enter began everywhere, so a complete line is a visible key: the files are the
 * shadow truth. A line cut short by a kill lacks its {@code \n} and counts as never written, as
 * does a line still being appended ({@link KeyFiles}).
 *
 * <p>Its writer writes while the file {@code go} exists and {@code stop} does not; its checker asks
 * its own guard for every present key, again and again, and counts the false negatives. Arguments:
 * cluster name, base port, source directory, member name, and the milliseconds its key source
 * sleeps before a scan (a slow bootstrap; it touches {@code scanning-NAME} first); optionally then,
 * for a slow joiner that does not write ({@link KilledMidDumpStreamTest}): the bytes per dump piece
 * it asks for, and the milliseconds it sleeps after each piece it receives (it touches {@code
 * streaming-NAME} at its first piece).
 */
public final class WritingMember {

  static final AtomicLong FALSE_NEGATIVES = new AtomicLong();
  static final AtomicLong CHECKED = new AtomicLong();
  static final AtomicLong WRITTEN = new AtomicLong();
  static final AtomicLong SLOWEST_ENTER_NANOS = new AtomicLong();

  private WritingMember() {}

  /** Every complete key line in {@code dir}'s key files ({@link KeyFiles#presentKeys}). */
  static List<Long> presentKeys(Path dir) throws IOException {
    return KeyFiles.presentKeys(dir);
  }

  /**
   * Starts this class as a member process on 127.0.0.1: {@code main}'s arguments cluster, base
   * port, directory and name, then {@code more}; its output goes to {@code dir/name.log}.
   */
  static Process launch(Path dir, String cluster, int basePort, String name, String... more)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            MemberJvms.javaCommand(
                WritingMember.class, cluster, Integer.toString(basePort), dir.toString(), name));
    command.addAll(List.of(more));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile())
        .start();
  }

  public static void main(String[] args) throws Exception {
    String cluster = args[0];
    int basePort = Integer.parseInt(args[1]);
    Path dir = Path.of(args[2]);
    String name = args[3];
    long scanDelayMillis = Long.parseLong(args[4]);
    int pieceBytes = args.length > 5 ? Integer.parseInt(args[5]) : 0;
    long pieceSleepMillis = args.length > 6 ? Long.parseLong(args[6]) : 0;
    boolean slowJoiner = pieceBytes > 0;
    long keyBase = (name.hashCode() & 0xffffL) << 40;
    Path own = dir.resolve("keys-" + name + ".txt");
    HazelcastInstance member = Hazelcast.newHazelcastInstance(Members.config(cluster, basePort));
    // A member with a slow bootstrap is killed in it: it bootstraps from its KeySource (no peer
    // dump), so that the kill lands in the scan.
    HazelcastGuardGroup<Long> group =
        Members.group(
            member,
            action -> {
              if (scanDelayMillis > 0) {
                Files.writeString(dir.resolve("scanning-" + name), "");
                Thread.sleep(scanDelayMillis);
              }
              presentKeys(dir).forEach(action);
            },
            Members.LEASE,
            scanDelayMillis == 0,
            b ->
                !slowJoiner
                    ? b
                    : b.dumpPieceBytes(pieceBytes)
                        .dumpPieceListener(
                            (peer, pieces) -> {
                              if (pieces == 1) {
                                try {
                                  Files.writeString(dir.resolve("streaming-" + name), "");
                                } catch (IOException e) {
                                  throw new java.io.UncheckedIOException(e);
                                }
                              }
                              Thread.sleep(pieceSleepMillis);
                            }));
    Thread checker =
        new Thread(
            () -> {
              while (true) {
                try {
                  for (long key : presentKeys(dir)) {
                    if (!group.guard().mightContain(key)) {
                      long count = FALSE_NEGATIVES.incrementAndGet();
                      if (count <= 10) { // what the member knew then, for the log
                        System.out.println(
                            "FALSE NEGATIVE "
                                + count
                                + ": key "
                                + key
                                + " (owner "
                                + Long.toHexString(key >>> 40)
                                + ") at "
                                + System.currentTimeMillis()
                                + " ms, mayAnswerAbsent "
                                + group.mayAnswerAbsent()
                                + ", local filter has it "
                                + group.guard().local().mightContain(key)
                                + ", lapses "
                                + group.lapses());
                      }
                    }
                    CHECKED.incrementAndGet();
                  }
                  Thread.sleep(1);
                } catch (IOException | RuntimeException e) {
                  // a file being appended to: read again
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "checker");
    checker.setDaemon(true);
    checker.start();
    Thread writer =
        new Thread(
            () -> {
              long n = 0;
              try {
                while (!Files.exists(dir.resolve("stop"))) {
                  if (slowJoiner || !Files.exists(dir.resolve("go"))) {
                    Thread.sleep(5);
                    continue;
                  }
                  long key = keyBase + ++n;
                  long start = System.nanoTime();
                  ReplicatedGuard.Enter<Long> enter = group.guard().beginEnter(key);
                  SLOWEST_ENTER_NANOS.accumulateAndGet(System.nanoTime() - start, Math::max);
                  Files.writeString(
                      own,
                      key + ";\n",
                      StandardCharsets.US_ASCII,
                      StandardOpenOption.CREATE,
                      StandardOpenOption.APPEND);
                  enter.visible();
                  WRITTEN.incrementAndGet();
                  Thread.sleep(2); // a steady stream, not a CPU hog on a shared machine
                }
              } catch (Exception e) {
                e.printStackTrace();
              }
            },
            "writer");
    writer.setDaemon(true);
    writer.start();
    System.out.println("STARTED " + name);
    Thread.sleep(TimeUnit.MINUTES.toMillis(5)); // stops by itself if the test forgot it
    System.exit(3);
  }

  /** The dump sessions open on the member it runs on (-1 if no guard): each pins a snapshot. */
  static final class OpenDumpSessions
      implements Callable<Integer>, Serializable, com.hazelcast.core.HazelcastInstanceAware {
    private static final long serialVersionUID = 1L;
    private transient HazelcastInstance instance;

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
      this.instance = instance;
    }

    @Override
    public Integer call() {
      HazelcastGuardGroup<?> group = HazelcastGuardGroup.registered(instance, "ids");
      return group == null ? -1 : group.dumps().openSessions();
    }
  }

  /**
   * {leased 0/1, written, slowest enter ns, false negatives, checked} of the member it runs on;
   * null fields if no guard yet.
   */
  static final class Report
      implements Callable<long[]>, Serializable, com.hazelcast.core.HazelcastInstanceAware {
    private static final long serialVersionUID = 1L;
    private transient HazelcastInstance instance;

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
      this.instance = instance;
    }

    @Override
    public long[] call() {
      HazelcastGuardGroup<?> group = HazelcastGuardGroup.registered(instance, "ids");
      return new long[] {
        group != null && group.mayAnswerAbsent() ? 1 : 0,
        WRITTEN.get(),
        SLOWEST_ENTER_NANOS.get(),
        FALSE_NEGATIVES.get(),
        CHECKED.get()
      };
    }
  }
}
