package io.github.cuckooguard.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Ours against FastFilter's cuckoo filter of the same width, interleaved in one JVM: the ratio
 * that survives a busy machine. {@link LookupBatchBenchmark} is the benchmark of record (run it on
 * a quiet machine); on a shared one, JMH runs each implementation in its own fork at its own
 * time, so a neighbour's build lands on one side of a ratio and not the other. Here every round
 * times each variant once, back to back, on the same slice of probes, and the report keeps the
 * 10th percentile and the median over rounds: a preempted round only inflates the upper ones.
 *
 * <p>Variants, each over {@value #CHUNK} lookups made as batches of 1,024: ours' loop of single
 * {@code mightContain}, ours' {@code mightContainAll}, FastFilter's loop of {@code mayContain};
 * pure-positive (every probe stored) and pure-negative (none stored) sequences.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.cuckooguard.benchmarks.LookupRatios \
 *     &lt;fingerprintBits 8|16&gt; &lt;n&gt; [rounds]
 * </pre>
 */
public final class LookupRatios {

  private static final int CHUNK = 1 << 16;
  private static final int BATCH = 1024;

  private LookupRatios() {}

  /** Counts "might contain" answers over probes[from, from + CHUNK). */
  @FunctionalInterface
  private interface Loop {
    long run(long[] probes, int from);
  }

  public static void main(String[] args) {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: LookupRatios <fingerprintBits 8|16> <n> [rounds]");
    }
    int f = Integer.parseInt(args[0]);
    int n = Integer.parseInt(args[1]);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 300;
    Impl oursImpl = Impl.valueOf("OURS_" + f);
    Impl ffImpl = Impl.valueOf("FF_CUCKOO_" + f);
    long[] keys = Keys.presentKeys(n);
    FilterAdapter ours = oursImpl.build(keys);
    FilterAdapter ff = ffImpl.build(keys);
    boolean[] out = new boolean[BATCH];
    List<String> names = new ArrayList<>();
    List<Loop> loops = new ArrayList<>();
    List<long[]> inputs = new ArrayList<>();
    for (int share : new int[] {100, 0}) {
      long[] probes = Keys.probes(n, share, 16 * CHUNK, Keys.SEED + share);
      String s = share == 100 ? "pos" : "neg";
      names.add(s + " ours loop");
      inputs.add(probes);
      loops.add((p, from) -> {
        long c = 0;
        for (int i = from; i < from + CHUNK; i++) {
          c += ours.mightContain(p[i]) ? 1 : 0;
        }
        return c;
      });
      names.add(s + " ours batch");
      inputs.add(probes);
      loops.add((p, from) -> {
        long c = 0;
        for (int b = from; b < from + CHUNK; b += BATCH) {
          ours.mightContainAll(p, b, BATCH, out);
          for (boolean x : out) {
            c += x ? 1 : 0;
          }
        }
        return c;
      });
      names.add(s + " FastFilter loop");
      inputs.add(probes);
      loops.add((p, from) -> {
        long c = 0;
        for (int i = from; i < from + CHUNK; i++) {
          c += ff.mightContain(p[i]) ? 1 : 0;
        }
        return c;
      });
    }
    long[][] times = new long[loops.size()][rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      int from = (r & 15) * CHUNK;
      for (int v = 0; v < loops.size(); v++) {
        long start = System.nanoTime();
        sink += loops.get(v).run(inputs.get(v), from);
        times[v][r] = System.nanoTime() - start;
      }
    }
    int warm = rounds / 3;
    System.out.printf(Locale.ROOT, "f=%d n=%d rounds=%d (first %d dropped) [%d]%n", f, n, rounds, warm, sink & 1);
    double[] p10 = new double[loops.size()];
    for (int v = 0; v < loops.size(); v++) {
      long[] t = Arrays.copyOfRange(times[v], warm, rounds);
      Arrays.sort(t);
      p10[v] = t[t.length / 10] / (double) CHUNK;
      System.out.printf(Locale.ROOT, "  %-22s p10 %7.2f  median %7.2f ns/lookup%n", names.get(v), p10[v],
          t[t.length / 2] / (double) CHUNK);
    }
    for (int base = 0; base < loops.size(); base += 3) {
      System.out.printf(Locale.ROOT, "  %s: ours loop / FastFilter %.3f, ours batch / FastFilter %.3f (p10)%n",
          names.get(base).substring(0, 3), p10[base] / p10[base + 2], p10[base + 1] / p10[base + 2]);
    }
  }
}
