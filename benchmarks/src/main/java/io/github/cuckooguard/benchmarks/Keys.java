package io.github.cuckooguard.benchmarks;

import java.util.SplittableRandom;

/**
 * The keys every implementation sees, derived from one fixed seed so that each benchmark and report
 * uses exactly the same inputs in every run and every fork.
 *
 * <p>{@code presentKey(i) = mix(2i)} and {@code absentKey(i) = mix(2i + 1)}, where {@code mix} is a
 * bijection of 64-bit values (an odd multiply, an add and the SplitMix64 finalizer). Hence the
 * present keys are pairwise distinct, the absent keys too, and no absent key is ever a present one
 * — without building a hash set of millions of keys.
 */
public final class Keys {

  /** The seed of every key and probe sequence, and of the filters that accept a seed. */
  public static final long SEED = 0x5EED_C0C0_F00DL;

  private Keys() {}

  /** The {@code i}-th key of the stored set. */
  public static long presentKey(long i) {
    return mix(2 * i);
  }

  /** The {@code i}-th key that is never stored. */
  public static long absentKey(long i) {
    return mix(2 * i + 1);
  }

  /** {@code presentKey(0) … presentKey(n − 1)}. */
  public static long[] presentKeys(int n) {
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = presentKey(i);
    }
    return keys;
  }

  /** {@code presentKey(from) … presentKey(to − 1)}. */
  public static long[] presentRange(int from, int to) {
    long[] keys = new long[to - from];
    for (int i = from; i < to; i++) {
      keys[i - from] = presentKey(i);
    }
    return keys;
  }

  /**
   * A lookup sequence of {@code count} keys in random order, exactly {@code
   * count·positivePercent/100} of them drawn (with repetition) from {@code presentKey(0 …
   * storedKeys − 1)} and the rest from absent keys.
   *
   * @param positivePercent in [0, 100]
   */
  public static long[] probes(int storedKeys, int positivePercent, int count, long seed) {
    if (positivePercent < 0 || positivePercent > 100) {
      throw new IllegalArgumentException(
          "positivePercent (" + positivePercent + ") must be in [0, 100]");
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    int positives = (int) ((long) count * positivePercent / 100);
    long[] probes = new long[count];
    for (int i = 0; i < count; i++) {
      probes[i] =
          i < positives ? presentKey(rnd.nextInt(storedKeys)) : absentKey(rnd.nextLong(1L << 40));
    }
    for (int i = count - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      long t = probes[i];
      probes[i] = probes[j];
      probes[j] = t;
    }
    return probes;
  }

  static long mix(long x) {
    long z = x * 0x9E3779B97F4A7C15L + SEED;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
