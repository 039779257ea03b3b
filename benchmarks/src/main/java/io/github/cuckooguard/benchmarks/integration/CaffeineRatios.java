package io.github.cuckooguard.benchmarks.integration;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * Guarded / plain Caffeine, interleaved in one JVM: the operations of {@link
 * CaffeineCacheBenchmark} on its two fixtures ({@code guarded=true} and {@code false}, built by its
 * own setup), timed round by round, the two settings alternating within each round (and which goes
 * first alternating between rounds), so that a machine load that changes during the run weighs on
 * both alike. Prints, per operation, the median and the 10th percentile of the per-round ns/op of
 * each setting and their ratios, then the three ratios the guard is held to (absent and present
 * {@code getIfPresent}, {@code put} over a live key) beside their targets, and the machine's load
 * average at the start and the end of the run (a ratio from a loaded machine is one to repeat). No
 * allocation figures (JMH {@code -prof gc} has those).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar \
 *     io.github.cuckooguard.benchmarks.integration.CaffeineRatios [rounds] [callsPerRound]
 * </pre>
 */
public final class CaffeineRatios {

  private static final String[] OPS = {
    "getIfPresentAbsent",
    "getIfPresentPresent",
    "putReplace",
    "putNewThenInvalidate",
    "getWithFunctionPresent"
  };

  /** The operations with a target: index into {@link #OPS}, and guarded / plain at most. */
  private static final int[] TARGET_OPS = {0, 1, 2};

  private static final double[] TARGETS = {1.0, 1.2, 1.3};

  private static final String[] TARGET_NAMES = {
    "getIfPresent, absent key", "getIfPresent, present key", "put over a live key (replace)"
  };

  /** Keeps the results live so that the JIT cannot drop the lookups. */
  private static int sink;

  private CaffeineRatios() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
    double loadAtStart = loadAverage();
    CaffeineCacheBenchmark guarded = fixture(true);
    CaffeineCacheBenchmark plain = fixture(false);
    // one cursor per setting, both from probe 0: the two walk the same keys in the same order
    CaffeineCacheBenchmark.Cursor guardedCursor = new CaffeineCacheBenchmark.Cursor(0);
    CaffeineCacheBenchmark.Cursor plainCursor = new CaffeineCacheBenchmark.Cursor(0);
    for (int w = 0; w < rounds / 4; w++) { // warm-up: compile both settings' paths
      for (int op = 0; op < OPS.length; op++) {
        time(guarded, op, calls, guardedCursor);
        time(plain, op, calls, plainCursor);
      }
    }
    double[][][] nsPerOp = new double[OPS.length][2][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int op = 0; op < OPS.length; op++) {
        boolean guardedFirst = (r & 1) == 0;
        CaffeineCacheBenchmark first = guardedFirst ? guarded : plain;
        CaffeineCacheBenchmark second = guardedFirst ? plain : guarded;
        CaffeineCacheBenchmark.Cursor firstCursor = guardedFirst ? guardedCursor : plainCursor;
        CaffeineCacheBenchmark.Cursor secondCursor = guardedFirst ? plainCursor : guardedCursor;
        double a = (double) time(first, op, calls, firstCursor) / calls;
        double b = (double) time(second, op, calls, secondCursor) / calls;
        nsPerOp[op][guardedFirst ? 0 : 1][r] = a;
        nsPerOp[op][guardedFirst ? 1 : 0][r] = b;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%d rounds of %d calls per setting and operation (sink %d)%n",
        rounds,
        calls,
        sink);
    System.out.println(
        "| operation | guarded median ns | plain median ns | ratio (median) | guarded p10 ns |"
            + " plain p10 ns | ratio (p10) |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|");
    double[][] ratios = new double[OPS.length][2];
    for (int op = 0; op < OPS.length; op++) {
      double[] g = nsPerOp[op][0];
      double[] p = nsPerOp[op][1];
      Arrays.sort(g);
      Arrays.sort(p);
      double gm = g[rounds / 2];
      double pm = p[rounds / 2];
      double g10 = g[rounds / 10];
      double p10 = p[rounds / 10];
      ratios[op][0] = gm / pm;
      ratios[op][1] = g10 / p10;
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |%n",
          OPS[op],
          gm,
          pm,
          gm / pm,
          g10,
          p10,
          g10 / p10);
    }
    System.out.println();
    System.out.println("Guarded / plain, the targets (ratio of the medians, of the p10s):");
    for (int t = 0; t < TARGET_OPS.length; t++) {
      double[] r = ratios[TARGET_OPS[t]];
      System.out.printf(
          Locale.ROOT,
          "  %-31s %.2f (p10 %.2f)   target <= %.1f   %s%n",
          TARGET_NAMES[t],
          r[0],
          r[1],
          TARGETS[t],
          r[0] <= TARGETS[t] ? "met" : "NOT met");
    }
    System.out.printf(
        Locale.ROOT,
        "Load average (1 min) at start %.2f, at end %.2f, on %d processors%n",
        loadAtStart,
        loadAverage(),
        Runtime.getRuntime().availableProcessors());
  }

  /** The one-minute load average, as {@code uptime} shows it; negative if unavailable. */
  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static CaffeineCacheBenchmark fixture(boolean guarded) {
    CaffeineCacheBenchmark b = new CaffeineCacheBenchmark();
    b.guarded = guarded;
    b.entries = 100_000;
    b.setUp();
    return b;
  }

  /** Nanoseconds for {@code calls} calls of operation {@code op} on {@code b}. */
  private static long time(
      CaffeineCacheBenchmark b, int op, int calls, CaffeineCacheBenchmark.Cursor c) {
    long start = System.nanoTime();
    switch (op) {
      case 0 -> getIfPresentAbsent(b, calls, c);
      case 1 -> getIfPresentPresent(b, calls, c);
      case 2 -> putReplace(b, calls, c);
      case 3 -> putNewThenInvalidate(b, calls, c);
      default -> getWithFunctionPresent(b, calls, c);
    }
    return System.nanoTime() - start;
  }

  private static void getIfPresentAbsent(
      CaffeineCacheBenchmark b, int calls, CaffeineCacheBenchmark.Cursor c) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      n += b.getIfPresentAbsent(c) == null ? 1 : 0;
    }
    sink += n;
  }

  private static void getIfPresentPresent(
      CaffeineCacheBenchmark b, int calls, CaffeineCacheBenchmark.Cursor c) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      n += b.getIfPresentPresent(c) == null ? 1 : 0;
    }
    sink += n;
  }

  private static void putReplace(
      CaffeineCacheBenchmark b, int calls, CaffeineCacheBenchmark.Cursor c) {
    for (int i = 0; i < calls; i++) {
      b.putReplace(c);
    }
  }

  private static void putNewThenInvalidate(
      CaffeineCacheBenchmark b, int calls, CaffeineCacheBenchmark.Cursor c) {
    for (int i = 0; i < calls; i++) {
      b.putNewThenInvalidate(c);
    }
  }

  private static void getWithFunctionPresent(
      CaffeineCacheBenchmark b, int calls, CaffeineCacheBenchmark.Cursor c) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      n += b.getWithFunctionPresent(c) == null ? 1 : 0;
    }
    sink += n;
  }
}
