package io.github.cuckooguard.internal.demo;

import io.github.cuckooguard.FilterInfo;
import io.github.cuckooguard.LongCuckooFilter;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A one-minute tour of the filter on embedded defaults: add a million keys, look up present and
 * absent ones, remove half, and print what was measured. Run by the README's first command.
 */
public final class Demo {

  private Demo() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    LongCuckooFilter filter =
        LongCuckooFilter.newBuilder().expectedInsertions(n).fpp(0.001).build();
    long start = System.nanoTime();
    for (long k = 0; k < n; k++) {
      if (!filter.add(k)) {
        throw new IllegalStateException("add failed at key " + k);
      }
    }
    long addNs = System.nanoTime() - start;
    long falseNegatives = 0;
    for (long k = 0; k < n; k++) {
      if (!filter.mightContain(k)) {
        falseNegatives++;
      }
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long probes = 1_000_000;
    long falsePositives = 0;
    start = System.nanoTime();
    for (long i = 0; i < probes; i++) {
      if (filter.mightContain(n + (random.nextLong() & Long.MAX_VALUE))) {
        falsePositives++;
      }
    }
    long lookupNs = System.nanoTime() - start;
    for (long k = 0; k < n; k += 2) {
      filter.remove(k);
    }
    long afterRemove = 0;
    for (long k = 1; k < n; k += 2) {
      if (!filter.mightContain(k)) {
        afterRemove++;
      }
    }
    FilterInfo info = filter.info();
    System.out.printf("Cuckoo Guard core demo: %,d keys, target fpp 0.001%n", n);
    System.out.printf("  add             %6.1f ns/key%n", (double) addNs / n);
    System.out.printf(
        "  negative lookup %6.1f ns/key (single thread, not a benchmark: see benchmarks/)%n",
        (double) lookupNs / probes);
    System.out.printf(
        "  false negatives %d (must be 0), after removing every other key: %d (must be 0)%n",
        falseNegatives, afterRemove);
    System.out.printf(
        "  false positives %.4f%% measured over %,d absent keys (expected %.4f%% at full load)%n",
        100.0 * falsePositives / probes,
        probes,
        100
            * io.github.cuckooguard.internal.Sizing.fppAtDesignLoad(
                info.fingerprintBits(), info.bucketSize()));
    System.out.printf(
        "  memory          %,d bytes = %.2f bits per key (%d-bit fingerprints)%n",
        info.sizeInBytes(), info.sizeInBytes() * 8.0 / n, info.fingerprintBits());
    System.out.println("  " + info);
    if (falseNegatives != 0 || afterRemove != 0) {
      System.exit(1);
    }
  }
}
