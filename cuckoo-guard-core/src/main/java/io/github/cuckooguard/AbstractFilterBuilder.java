package io.github.cuckooguard;

import io.github.cuckooguard.internal.FilterCore;
import io.github.cuckooguard.internal.Sizing;
import java.security.SecureRandom;

/**
 * Settings shared by {@link CuckooFilter.Builder} and {@link LongCuckooFilter.Builder}. Each setter
 * checks its value at once and may be called only once; the message names the bad value and the
 * accepted range. Not thread-safe; a builder may build any number of filters.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class AbstractFilterBuilder<B extends AbstractFilterBuilder<B>> {

  /** Capacity used when {@link #expectedInsertions} is not set (RedisBloom's cf-initial-size). */
  public static final long DEFAULT_EXPECTED_INSERTIONS = 1024;

  /** Target false-positive probability used when neither fpp nor fingerprint bits are set. */
  public static final double DEFAULT_FPP = 0.01;

  /** Slots per bucket unless set. */
  public static final int DEFAULT_BUCKET_SIZE = 4;

  /**
   * Kick-search budget per insert unless set: buckets the breadth-first search may visit. It is
   * larger than the customary 500 so that tables of millions of 4-slot buckets still reach their
   * design load before a first failed insert; the extra search only runs in nearly full
   * neighbourhoods.
   */
  public static final int DEFAULT_MAX_KICKS = 1000;

  /**
   * Growth unless set: 2 appends sub-filters each twice the size of the one before, so a filter
   * grown to 31 times its first table probes 5 sub-filters per lookup instead of 31 (with 1), and
   * spends its growth fpp budget over few sub-filters (see {@link #expansion}).
   */
  public static final int DEFAULT_EXPANSION = 2;

  /** Largest accepted {@link #expectedInsertions}. */
  public static final long MAX_EXPECTED_INSERTIONS = 1L << 40;

  private static final SecureRandom SEEDS = new SecureRandom();

  private long expectedInsertions = -1;
  private double fpp = -1;
  private int fingerprintBits = -1;
  private int bucketSize = -1;
  private int maxKicks = -1;
  private int expansion = -1;
  private boolean seedSet;
  private long seed;
  private long maxBytes = -1;
  private boolean semiSorted;

  AbstractFilterBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * The number of keys the filter is sized for: the table gets enough buckets for that many keys at
   * a load of {@value Sizing#DESIGN_LOAD} for 4-slot buckets (0.84 for 2, 0.98 for 8), a load that
   * cuckoo tables of a few hundred buckets or more fill past before their first failed insert.
   * Smaller tables fill less evenly: a fixed-size filter ({@code expansion(0)}) for fewer than
   * about a thousand keys may reject an add before it holds {@code expectedInsertions} keys. With
   * the default expansion such a filter grows instead of rejecting the add. Default {@value
   * #DEFAULT_EXPECTED_INSERTIONS}.
   *
   * @param expectedInsertions in [1, 2^40]
   */
  public B expectedInsertions(long expectedInsertions) {
    requireUnset(this.expectedInsertions < 0, "expectedInsertions", this.expectedInsertions);
    if (expectedInsertions < 1 || expectedInsertions > MAX_EXPECTED_INSERTIONS) {
      throw new IllegalArgumentException(
          "expectedInsertions ("
              + expectedInsertions
              + ") must be in [1, "
              + MAX_EXPECTED_INSERTIONS
              + "]");
    }
    this.expectedInsertions = expectedInsertions;
    return self();
  }

  /**
   * The target false-positive probability at the sized capacity; picks the fingerprint width {@code
   * f = ⌈log2(2·b·0.95 / fpp)⌉} (at least 4). Exclusive with {@link #fingerprintBits}. Default
   * {@value #DEFAULT_FPP}.
   *
   * @param fpp in (0, 1), and not below what 16-bit fingerprints reach (≈ 1.2e-4 at b = 4)
   */
  public B fpp(double fpp) {
    requireUnset(this.fpp < 0, "fpp", this.fpp);
    if (fingerprintBits >= 0) {
      throw new IllegalStateException(
          "fpp cannot be set together with fingerprintBits ("
              + fingerprintBits
              + "); set one of them");
    }
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("fpp (" + fpp + ") must be in (0, 1)");
    }
    this.fpp = fpp;
    return self();
  }

  /**
   * Bits per fingerprint, instead of deriving them from {@link #fpp}: 8 ≈ 3 %, 12 ≈ 0.2 %, 16 ≈
   * 0.01 % at b = 4 and full load.
   *
   * <p>Below 8 bits large tables cannot reach the design load: the alternate bucket depends on the
   * fingerprint only, so it takes just 2<sup>f</sup> − 1 offsets, and the fewer offsets the lower
   * the load at which the first insert fails. With {@code expansion(0)} such a filter rejects adds
   * before {@link #expectedInsertions}; with the default expansion it grows a sub-filter instead.
   *
   * @param fingerprintBits in [4, 16]
   */
  public B fingerprintBits(int fingerprintBits) {
    requireUnset(this.fingerprintBits < 0, "fingerprintBits", this.fingerprintBits);
    if (fpp >= 0) {
      throw new IllegalStateException(
          "fingerprintBits cannot be set together with fpp (" + fpp + "); set one of them");
    }
    if (fingerprintBits < 4 || fingerprintBits > 16) {
      throw new IllegalArgumentException(
          "fingerprintBits (" + fingerprintBits + ") must be in [4, 16]");
    }
    this.fingerprintBits = fingerprintBits;
    return self();
  }

  /**
   * Slots per bucket (default {@value #DEFAULT_BUCKET_SIZE}). Larger buckets fill further (b = 2:
   * ~84 %, 4: ~95 %, 8: ~98 %) but raise the false-positive rate per bit.
   *
   * @param bucketSize 2, 4 or 8
   */
  public B bucketSize(int bucketSize) {
    requireUnset(this.bucketSize < 0, "bucketSize", this.bucketSize);
    if (bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
      throw new IllegalArgumentException("bucketSize (" + bucketSize + ") must be 2, 4 or 8");
    }
    if (semiSorted && bucketSize != 4) {
      throw new IllegalStateException(
          "bucketSize (" + bucketSize + ") must be 4 for a semiSorted filter");
    }
    this.bucketSize = bucketSize;
    return self();
  }

  /**
   * How many buckets an insert may search for a kick path before it reports the filter full
   * (RedisBloom's MAXITERATIONS; default {@value #DEFAULT_MAX_KICKS}).
   *
   * @param maxKicks in [1, 65535]
   */
  public B maxKicks(int maxKicks) {
    requireUnset(this.maxKicks < 0, "maxKicks", this.maxKicks);
    if (maxKicks < 1 || maxKicks > 65535) {
      throw new IllegalArgumentException("maxKicks (" + maxKicks + ") must be in [1, 65535]");
    }
    this.maxKicks = maxKicks;
    return self();
  }

  /**
   * Growth when full (RedisBloom's EXPANSION): 0 keeps the size fixed and a full filter rejects
   * adds; e ≥ 1 appends a sub-filter e times the size of the previous one, up to {@value
   * FilterCore#MAX_SUB_FILTERS} sub-filters. Default {@value #DEFAULT_EXPANSION}.
   *
   * <p>The false-positive rate stays bounded however far the filter grows: sub-filter t ≥ 1 stores
   * fingerprints g + t − 1 bits wide (at most 32), g chosen so that all the sub-filters growth can
   * add stay within what the full first sub-filter leaves of the target fpp (at least 1/64 of it):
   * for {@code fpp(0.001)} the first has 13 bits and the added ones 20, 21, 22, …; for {@code
   * fpp(0.01)} 10 and then 13, 14, …. A grown filter thus stays within the target fpp whenever its
   * first sub-filter does when completely full (as at 0.001 and 0.01); where that full first
   * sub-filter alone is slightly above the target (by at most 1/0.95, for targets just above what a
   * width reaches, or with {@link #fingerprintBits} set) growth adds at most 1/64 of the target. It
   * pays for this in space: the added sub-filters take g + t − 1 bits per slot instead of the first
   * one's width. Each sub-filter is probed on every lookup of an absent key, so fewer, larger
   * sub-filters (a larger expansion) are also faster; a {@link CuckooGuard} rebuilds a grown filter
   * at the right size instead.
   *
   * @param expansion in [0, 32768]
   */
  public B expansion(int expansion) {
    requireUnset(this.expansion < 0, "expansion", this.expansion);
    if (expansion < 0 || expansion > 32768) {
      throw new IllegalArgumentException("expansion (" + expansion + ") must be in [0, 32768]");
    }
    this.expansion = expansion;
    return self();
  }

  /**
   * The hash seed. By default each filter draws a random one, so that keys cannot be chosen to
   * collide; set it to build filters that can exchange dumps or must behave reproducibly.
   */
  public B seed(long seed) {
    requireUnset(!seedSet, "seed", this.seed);
    this.seedSet = true;
    this.seed = seed;
    return self();
  }

  /**
   * The most bytes of fingerprint storage the filter may use, over all its sub-filters: growth
   * stops there (an add that would need another sub-filter returns false, nothing is lost), and
   * {@link CuckooFilter.Builder#build() build()} refuses an {@link #expectedInsertions} whose first
   * table alone exceeds it. Growth checks the bound before it allocates, so a filter never runs the
   * heap out. Default: {@value Sizing#DEFAULT_MAX_BYTES_FRACTION} of {@link Runtime#maxMemory()} at
   * build time, so a filter and its rebuild fit side by side.
   *
   * @param maxBytes at least 1
   */
  public B maxBytes(long maxBytes) {
    requireUnset(this.maxBytes < 0, "maxBytes", this.maxBytes);
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes (" + maxBytes + ") must be >= 1");
    }
    this.maxBytes = maxBytes;
    return self();
  }

  /**
   * Stores each bucket semi-sorted (Fan et al., "Cuckoo Filter: Practically Better Than Bloom",
   * §5.2): the four fingerprints of a bucket are kept sorted, so their high 4 bits form one of
   * 3,876 sorted combinations, encoded in 12 bits instead of 16. Each slot then takes one bit less
   * for the same fingerprint width and the same false-positive rate: {@code fpp(0.001)} keeps its
   * 13-bit fingerprints in 12 bits per slot, about 12.6 instead of 13.7 bits per item at the sized
   * capacity. Lookups decode the buckets and cost more than with the plain layout (the measured
   * figures are in the benchmarks module's README); every other property of the filter is kept.
   * Sub-filters that growth adds with fingerprints wider than 16 bits use the plain layout. The
   * layout is recorded in dumps; a dump is always read in the layout it was written in.
   *
   * <p>Requires 4-slot buckets (the default {@link #bucketSize}).
   */
  public B semiSorted() {
    requireUnset(!semiSorted, "semiSorted", true);
    if (bucketSize >= 0 && bucketSize != 4) {
      throw new IllegalStateException(
          "semiSorted needs bucketSize 4, but bucketSize is " + bucketSize);
    }
    this.semiSorted = true;
    return self();
  }

  private static void requireUnset(boolean unset, String name, Object current) {
    if (!unset) {
      throw new IllegalStateException(name + " was already set to " + current);
    }
  }

  /** The engine for these settings; throws if the table cannot be allocated. */
  FilterCore buildCore() {
    int b = bucketSize < 0 ? DEFAULT_BUCKET_SIZE : bucketSize;
    int f = fingerprintBits;
    // The fpp growth keeps the filter within: the target, or what the set width gives.
    double target = f < 0 ? (fpp < 0 ? DEFAULT_FPP : fpp) : Sizing.fppAtDesignLoad(f, b);
    if (f < 0) {
      double p = target;
      f = Sizing.fingerprintBits(p, b);
      if (f < 0) {
        throw new IllegalArgumentException(
            "fpp ("
                + p
                + ") is below what 16-bit fingerprints reach at bucketSize "
                + b
                + "; the smallest is "
                + Sizing.minFpp(b));
      }
    }
    long expected = expectedInsertions < 0 ? DEFAULT_EXPECTED_INSERTIONS : expectedInsertions;
    long bound = maxBytes < 0 ? Sizing.defaultMaxBytes() : maxBytes;
    long bytes = Sizing.firstTableBytes(expected, f, b, semiSorted);
    if (bytes < 0 || bytes > bound) {
      // Name the value the caller passed and what would be accepted with these settings.
      long max = Sizing.maxExpectedInsertions(f, b, bound, MAX_EXPECTED_INSERTIONS, semiSorted);
      if (max == 0) {
        throw new IllegalArgumentException(
            "maxBytes ("
                + bound
                + ") is smaller than the smallest table ("
                + Sizing.firstTableBytes(1, f, b, semiSorted)
                + " bytes at "
                + f
                + "-bit fingerprints and bucketSize "
                + b
                + "); raise it");
      }
      String need =
          bytes < 0
              ? "a table larger than a Java array can index"
              : bytes
                  + " bytes of fingerprints, more than maxBytes ("
                  + bound
                  + (maxBytes < 0
                      ? ", by default "
                          + Sizing.DEFAULT_MAX_BYTES_FRACTION
                          + " of Runtime.maxMemory()"
                      : "")
                  + ")";
      throw new IllegalArgumentException(
          "expectedInsertions ("
              + expected
              + ") needs "
              + need
              + " at "
              + f
              + "-bit fingerprints and bucketSize "
              + b
              + "; the accepted range at these settings is [1, "
              + max
              + "]: lower it, raise maxBytes (or the heap), or shard keys over several filters");
    }
    long s = seedSet ? seed : SEEDS.nextLong();
    return new FilterCore(
        f,
        b,
        (int) Sizing.buckets(expected, b),
        maxKicks < 0 ? DEFAULT_MAX_KICKS : maxKicks,
        expansion < 0 ? DEFAULT_EXPANSION : expansion,
        Sizing.growthBits(target, f, b),
        s,
        bound,
        semiSorted);
  }
}
