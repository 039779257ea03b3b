package io.github.cuckooguard.benchmarks;

import io.github.cuckooguard.LongCuckooFilter;
import java.util.Arrays;
import java.util.Locale;
import org.fastfilter.Filter;

/**
 * The semi-sorted layout against the plain one of the same fingerprints, and both against
 * FastFilter's 16-bit cuckoo filter, interleaved in one JVM the way {@link LookupRatios} does it
 * (the ratio that survives a busy machine; {@link SemiSortedLookupBenchmark} is the JMH form):
 * every round times each variant once, back to back, each on its own unused slice of the probes,
 * and the report keeps the 10th percentile and the median over rounds.
 *
 * <p>Variants, 4,096 lookups per round as batches of 1,024: plain and semi-sorted loops of {@code
 * mightContain}, plain and semi-sorted {@code mightContainAll}, FastFilter Cuckoo16's loop of
 * {@code mayContain}; pure-positive and pure-negative sequences.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.cuckooguard.benchmarks.SemiSortedRatios \
 *     &lt;fingerprintBits 5..16&gt; &lt;n&gt; [rounds, default 6000]
 * </pre>
 */
public final class SemiSortedRatios {

  private static final int BATCH = 1024;
  private static final int CHUNK = 4 * BATCH;
  private static final int PROBES = 1 << 21;

  private SemiSortedRatios() {}

  private static LongCuckooFilter build(long[] keys, int bits, boolean semiSorted) {
    LongCuckooFilter.Builder b =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(keys.length)
            .fingerprintBits(bits)
            .seed(Keys.SEED);
    LongCuckooFilter f = (semiSorted ? b.semiSorted() : b).build();
    for (long k : keys) {
      if (!f.add(k)) {
        throw new IllegalStateException("add refused: " + f.info());
      }
    }
    return f;
  }

  private static long loop(LongCuckooFilter f, long[] p, int from) {
    long c = 0;
    for (int i = from; i < from + CHUNK; i++) {
      c += f.mightContain(p[i]) ? 1 : 0;
    }
    return c;
  }

  private static long batch(LongCuckooFilter f, long[] p, int from, boolean[] out) {
    long c = 0;
    for (int b = from; b < from + CHUNK; b += BATCH) {
      f.mightContainAll(p, b, BATCH, out);
      for (boolean x : out) {
        c += x ? 1 : 0;
      }
    }
    return c;
  }

  private static long fastFilterLoop(Filter f, long[] p, int from) {
    long c = 0;
    for (int i = from; i < from + CHUNK; i++) {
      c += f.mayContain(p[i]) ? 1 : 0;
    }
    return c;
  }

  public static void main(String[] args) {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: SemiSortedRatios <fingerprintBits> <n> [rounds]");
    }
    int f = Integer.parseInt(args[0]);
    int n = Integer.parseInt(args[1]);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6000;
    long[] keys = Keys.presentKeys(n);
    LongCuckooFilter plain = build(keys, f, false);
    LongCuckooFilter semi = build(keys, f, true);
    Filter ff = ((Adapters.FastFilter) Impl.FF_CUCKOO_16.build(keys)).filter;
    System.out.printf(
        Locale.ROOT,
        "bits/item: plain %.3f, semi-sorted %.3f, FastFilter Cuckoo16 %.3f%n",
        plain.sizeInBytes() * 8.0 / n,
        semi.sizeInBytes() * 8.0 / n,
        ff.getBitCount() / (double) n);
    boolean[] out = new boolean[BATCH];
    String[] kinds = {"plain loop", "semi loop", "plain batch", "semi batch", "FF16 loop"};
    int k = kinds.length;
    long[][] inputs = {
      Keys.probes(n, 100, PROBES, Keys.SEED + 100), Keys.probes(n, 0, PROBES, Keys.SEED)
    };
    long[][] times = new long[2 * k][rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      for (int v = 0; v < 2 * k; v++) {
        long[] in = inputs[v / k];
        int from = (int) (((long) r * 2 * k + v) * CHUNK % PROBES);
        long start = System.nanoTime();
        sink +=
            switch (v % k) {
              case 0 -> loop(plain, in, from);
              case 1 -> loop(semi, in, from);
              case 2 -> batch(plain, in, from, out);
              case 3 -> batch(semi, in, from, out);
              default -> fastFilterLoop(ff, in, from);
            };
        times[v][r] = System.nanoTime() - start;
      }
    }
    int warm = rounds / 3;
    System.out.printf(
        Locale.ROOT, "f=%d n=%d rounds=%d (first %d dropped) [%d]%n", f, n, rounds, warm, sink & 1);
    double[] p10 = new double[2 * k];
    for (int v = 0; v < 2 * k; v++) {
      long[] t = Arrays.copyOfRange(times[v], warm, rounds);
      Arrays.sort(t);
      p10[v] = t[t.length / 10] / (double) CHUNK;
      System.out.printf(
          Locale.ROOT,
          "  %s %-12s p10 %7.2f  median %7.2f ns/lookup%n",
          v < k ? "pos" : "neg",
          kinds[v % k],
          p10[v],
          t[t.length / 2] / (double) CHUNK);
    }
    for (int base = 0; base < 2 * k; base += k) {
      System.out.printf(
          Locale.ROOT,
          "  %s (p10): semi/plain loop %.3f, batch %.3f; semi loop/FF16 %.3f, semi batch/FF16 %.3f%n",
          base == 0 ? "pos" : "neg",
          p10[base + 1] / p10[base],
          p10[base + 3] / p10[base + 2],
          p10[base + 1] / p10[base + 4],
          p10[base + 3] / p10[base + 4]);
    }
  }
}
