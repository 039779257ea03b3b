package io.github.cuckooguard.benchmarks;

import io.github.cuckooguard.LongCuckooFilter;
import java.util.Arrays;
import java.util.Locale;
import org.fastfilter.Filter;

/**
 * Ours against FastFilter's cuckoo filter of the same width, interleaved in one JVM: the ratio that
 * survives a busy machine. {@link LookupBatchBenchmark} is the benchmark of record (run it on a
 * quiet machine); on a shared one, JMH runs each implementation in its own fork at its own time, so
 * a neighbour's build lands on one side of a ratio and not the other. Here every round times each
 * variant once, back to back, each on the next unused slice of the probes (never on the slice
 * another variant just warmed the cache with), and the report keeps the 10th percentile and the
 * median over rounds: a preempted round only inflates the upper ones.
 *
 * <p>Variants, each over 4,096 lookups per round, made as batches of 1,024: ours' loop of single
 * {@code mightContain}, ours' {@code mightContainAll}, FastFilter's loop of {@code mayContain};
 * pure-positive (every probe stored) and pure-negative (none stored) sequences.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.cuckooguard.benchmarks.LookupRatios \
 *     &lt;fingerprintBits 8|16&gt; &lt;n&gt; [rounds, default 6000]
 * </pre>
 */
public final class LookupRatios {

  private static final int BATCH = 1024;

  /** Lookups per timed round: 4 batches, about 0.1 ms, short enough to run between preemptions. */
  private static final int CHUNK = 4 * BATCH;

  /**
   * Probes per sequence: 16 MiB of keys, so a 16 M filter's lines are not cached from round to
   * round.
   */
  private static final int PROBES = 1 << 21;

  private LookupRatios() {}

  /** Ours: single lookups on the filter itself (no adapter in between). */
  private static long oursLoop(LongCuckooFilter f, long[] p, int from) {
    long c = 0;
    for (int i = from; i < from + CHUNK; i++) {
      c += f.mightContain(p[i]) ? 1 : 0;
    }
    return c;
  }

  /** Ours: the adapter's batch call (LongCuckooFilter.mightContainAll where it exists). */
  private static long oursBatch(FilterAdapter f, long[] p, int from, boolean[] out) {
    long c = 0;
    for (int b = from; b < from + CHUNK; b += BATCH) {
      f.mightContainAll(p, b, BATCH, out);
      for (boolean x : out) {
        c += x ? 1 : 0;
      }
    }
    return c;
  }

  /** FastFilter: single lookups on its filter itself. */
  private static long fastFilterLoop(Filter f, long[] p, int from) {
    long c = 0;
    for (int i = from; i < from + CHUNK; i++) {
      c += f.mayContain(p[i]) ? 1 : 0;
    }
    return c;
  }

  public static void main(String[] args) {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: LookupRatios <fingerprintBits 8|16> <n> [rounds]");
    }
    int f = Integer.parseInt(args[0]);
    int n = Integer.parseInt(args[1]);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6000;
    long[] keys = Keys.presentKeys(n);
    FilterAdapter ours = Impl.valueOf("OURS_" + f).build(keys);
    LongCuckooFilter oursFilter = ((Adapters.Ours) ours).filter;
    Filter ff = ((Adapters.FastFilter) Impl.valueOf("FF_CUCKOO_" + f).build(keys)).filter;
    boolean[] out = new boolean[BATCH];
    String[] names = {
      "pos ours loop",
      "pos ours batch",
      "pos FastFilter loop",
      "neg ours loop",
      "neg ours batch",
      "neg FastFilter loop"
    };
    long[][] inputs = new long[names.length][];
    for (int v = 0; v < names.length; v++) {
      int share = v < 3 ? 100 : 0;
      inputs[v] = v % 3 == 0 ? Keys.probes(n, share, PROBES, Keys.SEED + share) : inputs[v - v % 3];
    }
    long[][] times = new long[names.length][rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      for (int v = 0; v < names.length; v++) {
        // each variant its own slice: one that follows another on the same keys would find the
        // probes and the buckets they hit already in cache
        int from = (int) (((long) r * names.length + v) * CHUNK % PROBES);
        long start = System.nanoTime();
        sink +=
            switch (v % 3) {
              case 0 -> oursLoop(oursFilter, inputs[v], from);
              case 1 -> oursBatch(ours, inputs[v], from, out);
              default -> fastFilterLoop(ff, inputs[v], from);
            };
        times[v][r] = System.nanoTime() - start;
      }
    }
    int warm = rounds / 3;
    System.out.printf(
        Locale.ROOT, "f=%d n=%d rounds=%d (first %d dropped) [%d]%n", f, n, rounds, warm, sink & 1);
    double[] p10 = new double[names.length];
    for (int v = 0; v < names.length; v++) {
      long[] t = Arrays.copyOfRange(times[v], warm, rounds);
      Arrays.sort(t);
      p10[v] = t[t.length / 10] / (double) CHUNK;
      System.out.printf(
          Locale.ROOT,
          "  %-22s p10 %7.2f  median %7.2f ns/lookup%n",
          names[v],
          p10[v],
          t[t.length / 2] / (double) CHUNK);
    }
    for (int base = 0; base < names.length; base += 3) {
      System.out.printf(
          Locale.ROOT,
          "  %s: ours loop / FastFilter %.3f, ours batch / FastFilter %.3f (p10)%n",
          names[base].substring(0, 3),
          p10[base] / p10[base + 2],
          p10[base + 1] / p10[base + 2]);
    }
  }
}
