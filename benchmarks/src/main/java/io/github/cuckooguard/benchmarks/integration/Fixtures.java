package io.github.cuckooguard.benchmarks.integration;

import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/** What both integration benchmarks share: probe keys and quiet logging. */
final class Fixtures {

  /** Probes per benchmark; a power of two, so a cursor wraps with a mask. */
  static final int PROBES = 1 << 12;

  /** The seed of every probe sequence. */
  static final long SEED = 0x5EED_C0C0_F00DL;

  // java.util.logging holds loggers weakly: keep the ones whose level is set
  private static final Logger ROOT = Logger.getLogger("");

  /** Hibernate's warning that its built-in connection pool is not for production, once per fork. */
  private static final Logger POOL = Logger.getLogger("org.hibernate.orm.connections.pooling");

  private Fixtures() {}

  /** The {@code i}-th stored key, {@code 0 <= i < rows}: the even numbers from 2. */
  static long presentKey(long i) {
    return 2 * i + 2;
  }

  /** The {@code i}-th key that is never stored: the odd numbers from 1, between the stored ones. */
  static long absentKey(long i) {
    return 2 * i + 1;
  }

  /**
   * {@value #PROBES} distinct keys {@code present ? presentKey(i) : absentKey(i)} for {@code i} in
   * {@code [0, rows)}, taken in a random order fixed by {@link #SEED}, skipping those {@code
   * accept} rejects.
   *
   * @throws IllegalStateException if fewer than {@value #PROBES} keys are accepted
   */
  static Long[] probes(int rows, boolean present, LongPredicate accept) {
    int[] order = new int[rows];
    for (int i = 0; i < rows; i++) {
      order[i] = i;
    }
    SplittableRandom random = new SplittableRandom(SEED + (present ? 1 : 0));
    Long[] probes = new Long[PROBES];
    int taken = 0;
    for (int i = 0; i < rows && taken < PROBES; i++) {
      int j = i + random.nextInt(rows - i); // Fisher-Yates, drawn lazily
      int pick = order[j];
      order[j] = order[i];
      long key = present ? presentKey(pick) : absentKey(pick);
      if (accept.test(key)) {
        probes[taken++] = key;
      }
    }
    if (taken < PROBES) {
      throw new IllegalStateException(
          "only "
              + taken
              + " of "
              + rows
              + " keys qualify as probes, "
              + PROBES
              + " needed: use more rows");
    }
    return probes;
  }

  /**
   * Sends only warnings and errors of java.util.logging (Hibernate, Hazelcast and the guards'
   * System.Logger all end up there) to the fork's output, and not Hibernate's warning about its
   * built-in pool: their start-up lines would bury JMH's.
   */
  static void quietLogging() {
    ROOT.setLevel(Level.WARNING);
    POOL.setLevel(Level.SEVERE);
  }
}
