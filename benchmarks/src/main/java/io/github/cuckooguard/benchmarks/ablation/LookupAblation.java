package io.github.cuckooguard.benchmarks.ablation;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import io.github.cuckooguard.LongCuckooFilter;
import io.github.cuckooguard.benchmarks.Keys;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.fastfilter.Filter;
import org.fastfilter.cuckoo.Cuckoo16;
import org.fastfilter.cuckoo.Cuckoo8;
import org.fastfilter.utils.Hash;

/**
 * Where our lookup time goes: an ablation, not a benchmark of record. It times our {@code
 * mightContain}, FastFilter's {@code mayContain}, and variants of our hot path rebuilt on a copy of
 * the filter's own table ({@code Table.data}, read by reflection): with and without the seqlock
 * stamps, with the answer computed branch-free or branched on, with FastFilter's hash in place of
 * xxh3, and with one aligned word per bucket instead of the two-word window.
 *
 * <p>Variants run interleaved, round after round on the same 65 536 probes, and the report keeps
 * the minimum and 10th percentile per variant: on a busy machine a preempted round only inflates
 * the upper percentiles, so the low ones still compare variants under equal conditions. The
 * variants mirror {@code Table.contains} of cuckoo-guard-core at the time the ablation was written,
 * and are checked to answer as the filter does on the first 65 536 probes (all but the one with
 * FastFilter's hash).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.cuckooguard.benchmarks.ablation.LookupAblation \
 *     &lt;fingerprintBits 8|16&gt; &lt;n&gt; &lt;positivePercent&gt; [rounds]
 * </pre>
 */
public final class LookupAblation {

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle VERSION;
  private static final long MIX = 0x9E3779B97F4A7C15L;
  private static final int CHUNK = 1 << 16;

  static {
    try {
      VERSION = MethodHandles.lookup().findVarHandle(LookupAblation.class, "version", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final LongCuckooFilter ours;
  private final Filter fastFilter;
  private final Hasher64 hasher = Hashing.xxh3_64(Keys.SEED);
  private final long[] data;
  private final long[] stamps = new long[1024];
  private final int buckets;
  private final int half;
  private final int bucketBits;
  private final long slotMask;
  private final long lows;
  private final long highs;
  private final long windowMask;

  @SuppressWarnings("unused") // read through VERSION
  private volatile long version;

  private LookupAblation(int f, int n) throws ReflectiveOperationException {
    long[] keys = Keys.presentKeys(n);
    ours =
        LongCuckooFilter.newBuilder()
            .expectedInsertions(n)
            .fingerprintBits(f)
            .seed(Keys.SEED)
            .build();
    for (long k : keys) {
      ours.add(k);
    }
    Hash.setSeed(Keys.SEED);
    fastFilter = f == 8 ? Cuckoo8.construct(keys) : Cuckoo16.construct(keys);
    Object core = field(Class.forName("io.github.cuckooguard.AbstractCuckooFilter"), ours, "core");
    Object[] tables = (Object[]) field(core.getClass(), core, "tables");
    if (tables.length != 1) {
      throw new IllegalStateException(
          "the filter grew to " + tables.length + " sub-filters; pick another n");
    }
    data = ((long[]) field(tables[0].getClass(), tables[0], "data")).clone();
    buckets = (int) field(tables[0].getClass(), tables[0], "localBuckets");
    half = buckets >>> 1;
    bucketBits = 4 * f;
    slotMask = (1L << f) - 1;
    long lo = 0;
    for (int i = 0; i < 4; i++) {
      lo |= 1L << (i * f);
    }
    lows = lo;
    highs = lo << (f - 1);
    windowMask = bucketBits == 64 ? -1L : (1L << bucketBits) - 1;
  }

  /** Field {@code name} declared by {@code type} or one of its superclasses. */
  private static Object field(Class<?> type, Object target, String name)
      throws ReflectiveOperationException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        Field field = c.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
      } catch (NoSuchFieldException notHere) {
        // declared further up
      }
    }
    throw new NoSuchFieldException(type.getName() + "." + name);
  }

  public static void main(String[] args) throws ReflectiveOperationException {
    if (args.length < 3) {
      throw new IllegalArgumentException(
          "usage: LookupAblation <fingerprintBits 8|16> <n> <positivePercent> [rounds]");
    }
    int f = Integer.parseInt(args[0]);
    if (f != 8 && f != 16) {
      throw new IllegalArgumentException(
          "fingerprintBits (" + f + ") must be 8 or 16: FastFilter has no other width");
    }
    int n = Integer.parseInt(args[1]);
    int share = Integer.parseInt(args[2]);
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 600;
    new LookupAblation(f, n).run(f, n, share, rounds);
  }

  private void run(int f, int n, int share, int rounds) {
    // Each variant owns its loop, so each call inside is monomorphic and inlined as in real use.
    List<String> names = new ArrayList<>();
    List<Loop> variants = new ArrayList<>();
    names.add("ours: LongCuckooFilter.mightContain");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += ours.mightContain(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("FastFilter Cuckoo" + f + ".mayContain");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += fastFilter.mayContain(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("model of FilterCore+Table.contains (ec99e84)");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += coreModel(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  Table.contains alone (no sub-filter loop)");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += validated(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  Table.contains before ec99e84 (branch on match)");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += stampsBranchy(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  Table.contains, stamp checks without && branches");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += stampsBranchFree(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  same, stamps read plainly (no VarHandle)");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += plainStamps(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  same, one acquire stamp per table");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += oneStamp(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  no stamps, answer branched on");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += noStampsBranchy(p[i]) ? 1 : 0;
          }
          return c;
        });
    names.add("  no stamps, branch-free");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += matches(hasher.hashLongToLong(p[i])) ? 1 : 0;
          }
          return c;
        });
    names.add("  no stamps, branch-free, FastFilter's hash");
    variants.add(
        (p, a, b) -> {
          long c = 0;
          for (int i = a; i < b; i++) {
            c += matches(Hash.hash64(p[i], Keys.SEED)) ? 1 : 0;
          }
          return c;
        });
    if (f == 16) {
      names.add("  no stamps, branch-free, one aligned word");
      variants.add(
          (p, a, b) -> {
            long c = 0;
            for (int i = a; i < b; i++) {
              c += oneWord(p[i]) ? 1 : 0;
            }
            return c;
          });
    }
    long[] probes = Keys.probes(n, share, 16 * CHUNK, Keys.SEED);
    for (int i = 0;
        i < CHUNK;
        i++) { // the models answer as the filter does (except FastFilter's hash)
      long expected = ours.mightContain(probes[i]) ? 1 : 0;
      for (int v = 2; v < variants.size(); v++) {
        if (!names.get(v).contains("FastFilter's hash")
            && variants.get(v).run(probes, i, i + 1) != expected) {
          throw new IllegalStateException(
              names.get(v) + " disagrees with the filter on probe " + i);
        }
      }
    }
    long[][] times = new long[variants.size()][rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      int from = (r & 15) * CHUNK;
      for (int v = 0; v < variants.size(); v++) {
        long start = System.nanoTime();
        sink += variants.get(v).run(probes, from, from + CHUNK);
        times[v][r] = System.nanoTime() - start;
      }
    }
    int warm = rounds / 3;
    System.out.printf(
        Locale.ROOT,
        "f=%d n=%d positive=%d%% rounds=%d (first %d dropped) [%d]%n",
        f,
        n,
        share,
        rounds,
        warm,
        sink & 1);
    for (int v = 0; v < variants.size(); v++) {
      long[] t = Arrays.copyOfRange(times[v], warm, rounds);
      Arrays.sort(t);
      System.out.printf(
          Locale.ROOT,
          "  %-48s min %6.2f  p10 %6.2f  median %6.2f ns/op%n",
          names.get(v),
          t[0] / (double) CHUNK,
          t[t.length / 10] / (double) CHUNK,
          t[t.length / 2] / (double) CHUNK);
    }
  }

  /** Counts "might contain" answers for probes[from, to). */
  @FunctionalInterface
  private interface Loop {
    long run(long[] probes, int from, int to);
  }

  // ---- models of the hot path ----

  private long fingerprint(long h) {
    long fp = h & slotMask;
    return fp | ((fp - 1) >>> 63);
  }

  private int primary(long h) {
    return (int) (((h >>> 32) * buckets) >>> 32);
  }

  private int alt(int l, long fp) {
    long m = (fp * MIX) >>> 32;
    int r = (int) ((m * half) >>> 32) * 2 + 1;
    int t = buckets - l - r;
    return t + ((t >> 31) & buckets);
  }

  private long window(long bitPos) {
    int w = (int) (bitPos >>> 6);
    int off = (int) bitPos & 63;
    return ((data[w] >>> off) | ((data[w + 1] << 1) << (63 - off))) & windowMask;
  }

  private boolean matches(int b1, int b2, long fp) {
    long rep = fp * lows;
    long x = window((long) b1 * bucketBits) ^ rep;
    long y = window((long) b2 * bucketBits) ^ rep;
    return ((((x - lows) & ~x) | ((y - lows) & ~y)) & highs) != 0;
  }

  private boolean matches(long h) {
    long fp = fingerprint(h);
    int l1 = primary(h);
    return matches(l1, alt(l1, fp), fp);
  }

  /** Table.contains: stamps read with acquire, then the buckets; a match returns at once. */
  private boolean stampsBranchy(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    int l2 = alt(l1, fp);
    int s1 = l1 & 1023;
    int s2 = l2 & 1023;
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(stamps, s1);
      long v2 = (long) LONGS.getAcquire(stamps, s2);
      if (matches(l1, l2, fp)) {
        return true;
      }
      VarHandle.acquireFence();
      if (((v1 | v2) & 1) == 0
          && v1 == (long) LONGS.getOpaque(stamps, s1)
          && v2 == (long) LONGS.getOpaque(stamps, s2)) {
        return false;
      }
      Thread.onSpinWait();
    }
  }

  private volatile Object[] subFilters = new Object[1];

  /** FilterCore.contains: the newest sub-filter first, returning at the first "might contain". */
  private boolean coreModel(long key) {
    Object[] ts = subFilters;
    for (int i = ts.length - 1; i >= 0; i--) {
      if (validated(key)) {
        return true;
      }
    }
    return false;
  }

  /** Table.contains as of ec99e84: the answer, match or not, is returned only once validated. */
  private boolean validated(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    int l2 = alt(l1, fp);
    int s1 = l1 & 1023;
    int s2 = l2 & 1023;
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(stamps, s1);
      long v2 = (long) LONGS.getAcquire(stamps, s2);
      boolean found = matches(l1, l2, fp);
      VarHandle.acquireFence();
      if (((v1 | v2) & 1) == 0
          && v1 == (long) LONGS.getOpaque(stamps, s1)
          && v2 == (long) LONGS.getOpaque(stamps, s2)) {
        return found;
      }
      Thread.onSpinWait();
    }
  }

  /** Table.contains with the stamp comparisons combined by {@code &}: one predictable branch. */
  private boolean stampsBranchFree(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    int l2 = alt(l1, fp);
    int s1 = l1 & 1023;
    int s2 = l2 & 1023;
    for (; ; ) {
      long v1 = (long) LONGS.getAcquire(stamps, s1);
      long v2 = (long) LONGS.getAcquire(stamps, s2);
      boolean hit = matches(l1, l2, fp);
      VarHandle.acquireFence();
      boolean stable =
          (((v1 | v2) & 1) == 0)
              & (v1 == (long) LONGS.getOpaque(stamps, s1))
              & (v2 == (long) LONGS.getOpaque(stamps, s2));
      if (stable) {
        return hit;
      }
      Thread.onSpinWait();
    }
  }

  /** Attribution only: not a correct seqlock. */
  private boolean plainStamps(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    int l2 = alt(l1, fp);
    int s1 = l1 & 1023;
    int s2 = l2 & 1023;
    for (; ; ) {
      long v1 = stamps[s1];
      long v2 = stamps[s2];
      if (matches(l1, l2, fp)) {
        return true;
      }
      if (((v1 | v2) & 1) == 0 && v1 == stamps[s1] && v2 == stamps[s2]) {
        return false;
      }
    }
  }

  private boolean oneStamp(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    int l2 = alt(l1, fp);
    for (; ; ) {
      long v = (long) VERSION.getAcquire(this);
      if (matches(l1, l2, fp)) {
        return true;
      }
      VarHandle.acquireFence();
      if ((v & 1) == 0 && v == (long) VERSION.getOpaque(this)) {
        return false;
      }
    }
  }

  private long branches;

  private boolean noStampsBranchy(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    if (matches(l1, alt(l1, fp), fp)) {
      branches++;
      return true;
    }
    branches--;
    return false;
  }

  /** f = 16 only: bucket i is exactly data[i], so one aligned load replaces the window. */
  private boolean oneWord(long key) {
    long h = hasher.hashLongToLong(key);
    long fp = fingerprint(h);
    int l1 = primary(h);
    int l2 = alt(l1, fp);
    long rep = fp * lows;
    long x = data[l1] ^ rep;
    long y = data[l2] ^ rep;
    return ((((x - lows) & ~x) | ((y - lows) & ~y)) & highs) != 0;
  }
}
