package io.github.cuckooguard.benchmarks.integration;

import java.util.Arrays;
import java.util.Locale;

/**
 * Guarded / plain Caffeine, interleaved in one JVM: the operations of {@link
 * CaffeineCacheBenchmark} on its two fixtures ({@code guarded=true} and {@code false}, built by its
 * own setup), timed round by round, the two settings alternating within each round (and which goes
 * first alternating between rounds), so that a machine load that changes during the run weighs on
 * both alike. Prints, per operation, the median and the 10th percentile of the per-round ns/op of
 * each setting and their ratios. No allocation figures (JMH {@code -prof gc} has those).
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

  /** Keeps the results live so that the JIT cannot drop the lookups. */
  private static int sink;

  private CaffeineRatios() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
    CaffeineCacheBenchmark guarded = fixture(true);
    CaffeineCacheBenchmark plain = fixture(false);
    for (int w = 0; w < rounds / 4; w++) { // warm-up: compile both settings' paths
      for (int op = 0; op < OPS.length; op++) {
        time(guarded, op, calls);
        time(plain, op, calls);
      }
    }
    double[][][] nsPerOp = new double[OPS.length][2][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int op = 0; op < OPS.length; op++) {
        boolean guardedFirst = (r & 1) == 0;
        CaffeineCacheBenchmark first = guardedFirst ? guarded : plain;
        CaffeineCacheBenchmark second = guardedFirst ? plain : guarded;
        double a = (double) time(first, op, calls) / calls;
        double b = (double) time(second, op, calls) / calls;
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
    for (int op = 0; op < OPS.length; op++) {
      double[] g = nsPerOp[op][0];
      double[] p = nsPerOp[op][1];
      Arrays.sort(g);
      Arrays.sort(p);
      double gm = g[rounds / 2];
      double pm = p[rounds / 2];
      double g10 = g[rounds / 10];
      double p10 = p[rounds / 10];
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
  }

  private static CaffeineCacheBenchmark fixture(boolean guarded) {
    CaffeineCacheBenchmark b = new CaffeineCacheBenchmark();
    b.guarded = guarded;
    b.entries = 100_000;
    b.setUp();
    return b;
  }

  /** Nanoseconds for {@code calls} calls of operation {@code op} on {@code b}. */
  private static long time(CaffeineCacheBenchmark b, int op, int calls) {
    long start = System.nanoTime();
    switch (op) {
      case 0 -> getIfPresentAbsent(b, calls);
      case 1 -> getIfPresentPresent(b, calls);
      case 2 -> putReplace(b, calls);
      case 3 -> putNewThenInvalidate(b, calls);
      default -> getWithFunctionPresent(b, calls);
    }
    return System.nanoTime() - start;
  }

  private static void getIfPresentAbsent(CaffeineCacheBenchmark b, int calls) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      n += b.getIfPresentAbsent() == null ? 1 : 0;
    }
    sink += n;
  }

  private static void getIfPresentPresent(CaffeineCacheBenchmark b, int calls) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      n += b.getIfPresentPresent() == null ? 1 : 0;
    }
    sink += n;
  }

  private static void putReplace(CaffeineCacheBenchmark b, int calls) {
    for (int i = 0; i < calls; i++) {
      b.putReplace();
    }
  }

  private static void putNewThenInvalidate(CaffeineCacheBenchmark b, int calls) {
    for (int i = 0; i < calls; i++) {
      b.putNewThenInvalidate();
    }
  }

  private static void getWithFunctionPresent(CaffeineCacheBenchmark b, int calls) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      n += b.getWithFunctionPresent() == null ? 1 : 0;
    }
    sink += n;
  }
}
