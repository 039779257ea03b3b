package io.github.cuckooguard.cluster.hazelcast;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import io.github.cuckooguard.cluster.hazelcast.testing.KeyFiles;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A member in its own JVM, started by {@link SeparateProcessTest}: a guard "ids" whose key source
 * is the shared file of keys, one per line (the file is the source: appending a line is what makes
 * a key visible). Answers {@link Probe}s until killed.
 */
public final class MemberProcess {

  /** Present keys this member answered "definitely absent" for, seen by its own checker thread. */
  static final AtomicLong FALSE_NEGATIVES = new AtomicLong();

  private MemberProcess() {}

  private static List<Long> readKeys(Path source) throws java.io.IOException {
    return KeyFiles.completeLines(source); // read while the writer appends: see KeyFiles
  }

  /** The checker's false-negative count on the member it runs on. */
  static final class CountFalseNegatives implements Callable<Long>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Long call() {
      return FALSE_NEGATIVES.get();
    }
  }

  public static void main(String[] args) throws Exception {
    String cluster = args[0];
    int basePort = Integer.parseInt(args[1]);
    Path source = Path.of(args[2]);
    HazelcastInstance member = Hazelcast.newHazelcastInstance(Members.config(cluster, basePort));
    HazelcastGuardGroup<Long> group =
        Members.group(member, action -> readKeys(source).forEach(action));
    Thread checker =
        new Thread(
            () -> { // this member's own readers: every key at the source, again and again
              while (true) {
                try {
                  for (long key : readKeys(source)) {
                    if (!group.guard().mightContain(key)) {
                      FALSE_NEGATIVES
                          .incrementAndGet(); // in the file, so present: no test removes keys
                    }
                  }
                } catch (Exception e) {
                  // a half-written line: read again
                }
              }
            },
            "checker");
    checker.setDaemon(true);
    checker.start();
    System.out.println("STARTED");
    Thread.sleep(Long.MAX_VALUE);
  }

  /**
   * Asks the member it runs on which of {@code keys} it answers "definitely absent" for; the last
   * element is 1 if it was leased.
   */
  static final class Probe implements Callable<long[]>, Serializable, HazelcastInstanceAware {
    private static final long serialVersionUID = 1L;
    private final long[] keys;
    private transient HazelcastInstance instance;

    Probe(long[] keys) {
      this.keys = keys;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
      this.instance = instance;
    }

    @Override
    @SuppressWarnings("unchecked")
    public long[] call() {
      HazelcastGuardGroup<Long> group =
          (HazelcastGuardGroup<Long>) HazelcastGuardGroup.registered(instance, "ids");
      if (group == null) {
        return new long[] {0};
      }
      boolean leased = group.mayAnswerAbsent();
      long[] absent = new long[keys.length + 1];
      int n = 0;
      for (long k : keys) {
        if (!group.guard().mightContain(k)) {
          absent[n++] = k;
        }
      }
      absent[n++] = leased ? 1 : 0;
      return Arrays.copyOf(absent, n);
    }
  }
}
