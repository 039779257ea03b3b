package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.alt;
import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The hiding move of {@link FourSlotGroupHidingMoveScenario} run as a cycle, over and over, on many
 * disjoint bucket pairs of a 16- or 8-bit plain table at once (the specialised lookups of {@link
 * Table}: both buckets loaded before either is tested, matches unvalidated, a group of four matches
 * returned unvalidated), beside lock-free readers. Pair p: buckets A, B = alt(A, F), keys K
 * (primary A) and J (primary B) of fingerprint F, A and B full of fillers that never move but for
 * one free slot. One cycle, each step a move of F's copy from the bucket a reader may read last to
 * the one it may have read first:
 *
 * <pre>
 *   start       A = [_, X2, X3, X4]  B = [F, Y1, Y2, Y3]
 *   add(J)      B full: F into A     A = [F, ...]          (unstamped)
 *   remove(J)   B first: B's F goes                         B = [_, ...] (stamped: A keeps F)
 *   add(K)      A full: F into B                            B = [F, ...]
 *   remove(K)   A first: A's F goes  A = [_, ...]           (stamped: B keeps F)
 * </pre>
 *
 * At every instant the pair holds F, so lookups of K and J must answer true. Readers look them up
 * singly and in groups of four, mixed with keys whose fingerprint is in no bucket at all (those
 * must answer false: a group's unvalidated match must be a copy, not a phantom). With n = 4096 and
 * 8-bit slots, two buckets share a word and stripes of the 1024 stamps cover four buckets each.
 */
class HidingMoveCycleStressTest {

  private static final long RUN_MILLIS = 3_000;

  @ParameterizedTest(name = "f={0} n={1}")
  @CsvSource({"16, 8", "16, 4096", "8, 8", "8, 4096", "8, 6", "16, 1030"})
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void residentKeysStayFoundThroughEndlessHidingMoves(int f, int n) throws InterruptedException {
    SplittableRandom setup = new SplittableRandom(31L * f + n);
    FilterCore core = new FilterCore(f, 4, n, 8, 0, 1);
    require(core.tables()[0].kind != PackedBuckets.GENERAL, "a specialised table");
    Table t = core.tables()[0];
    // Fingerprints: fillers 1..60, pairs 61..190, absent keys 191..254 (8-bit safe).
    boolean[] used = new boolean[n];
    List<long[]> pairs = new ArrayList<>(); // {K, J}
    for (int a = 0; a < n; a++) {
      if (used[a]) {
        continue;
      }
      long fp = 61 + setup.nextInt(130);
      int b = alt(a, fp, n);
      if (used[b] || b == a) {
        continue;
      }
      used[a] = true;
      used[b] = true;
      long k = hash(a, fp, n);
      long j = hash(b, fp, n);
      for (int i = 0; i < 4; i++) {
        require(core.add(hash(a, 1 + setup.nextInt(60), n)), "fill A");
      }
      require(core.add(k), "K into B");
      for (int i = 0; i < 3; i++) {
        require(core.add(hash(b, 1 + setup.nextInt(60), n)), "fill B");
      }
      long x1 = t.read(a, 0);
      require(core.remove(hash(a, x1, n)), "one free slot in A");
      require(t.slotOf(b, fp) >= 0 && t.slotOf(a, fp) < 0, "F in B only");
      pairs.add(new long[] {k, j});
    }
    require(pairs.size() >= Math.min(2, n / 4), "pairs");
    long[] absent = new long[64];
    for (int i = 0; i < absent.length; i++) {
      absent[i] = hash(setup.nextInt(n), 191 + i, n);
      require(!core.contains(absent[i]), "absent");
    }
    int[] step = new int[pairs.size()];

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong misses = new AtomicLong();
    AtomicLong phantoms = new AtomicLong();
    AtomicLong checked = new AtomicLong();
    AtomicLong fullGroups = new AtomicLong();
    AtomicLong cycles = new AtomicLong();
    AtomicReference<String> first = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer =
        new Thread(
            () -> {
              SplittableRandom rnd = new SplittableRandom(7L * f + n);
              try {
                while (!stop.get()) {
                  int p = rnd.nextInt(pairs.size());
                  long[] kj = pairs.get(p);
                  boolean ok = false;
                  switch (step[p]) {
                    case 0 -> ok = core.add(kj[1]);
                    case 1 -> ok = core.remove(kj[1]);
                    case 2 -> ok = core.add(kj[0]);
                    default -> {
                      ok = core.remove(kj[0]);
                      cycles.incrementAndGet();
                    }
                  }
                  if (!ok) {
                    throw new AssertionError("step " + step[p] + " of pair " + p + " failed");
                  }
                  step[p] = (step[p] + 1) & 3;
                }
              } catch (Throwable e) {
                failure.compareAndSet(null, e);
              }
            },
            "writer");
    Thread reader =
        new Thread(
            () -> {
              SplittableRandom rnd = new SplittableRandom(11L * f + n);
              long[] h = new long[4];
              boolean[] resident = new boolean[4];
              try {
                while (!stop.get()) {
                  for (int k = 0; k < 4; k++) {
                    resident[k] = rnd.nextInt(4) != 0;
                    h[k] =
                        resident[k]
                            ? pairs.get(rnd.nextInt(pairs.size()))[rnd.nextInt(2)]
                            : absent[rnd.nextInt(absent.length)];
                  }
                  if (rnd.nextInt(4) == 0) {
                    boolean found = core.contains(h[0]);
                    checked.incrementAndGet();
                    record(found, resident[0], h[0], "contains", misses, phantoms, first);
                    continue;
                  }
                  int found = core.contains4(h[0], h[1], h[2], h[3]);
                  if (found == 15) {
                    fullGroups.incrementAndGet();
                  }
                  for (int k = 0; k < 4; k++) {
                    checked.incrementAndGet();
                    record(
                        (found & (1 << k)) != 0,
                        resident[k],
                        h[k],
                        "contains4 lane " + k,
                        misses,
                        phantoms,
                        first);
                  }
                }
              } catch (Throwable e) {
                failure.compareAndSet(null, e);
              }
            },
            "reader");
    writer.start();
    reader.start();
    Thread.sleep(RUN_MILLIS);
    stop.set(true);
    writer.join(20_000);
    reader.join(20_000);
    System.out.printf(
        "HidingMoveCycleStressTest f=%d n=%d: %d pairs, %d cycles, %d lookups checked, %d groups"
            + " of four matches, %d misses, %d phantoms%n",
        f,
        n,
        pairs.size(),
        cycles.get(),
        checked.get(),
        fullGroups.get(),
        misses.get(),
        phantoms.get());
    assertThat(failure.get()).isNull();
    assertThat(cycles.get()).isGreaterThan(1_000);
    assertThat(misses.get()).as("false negatives; first: %s", first.get()).isZero();
    assertThat(phantoms.get())
        .as("keys of a fingerprint stored nowhere; first: %s", first.get())
        .isZero();
    for (long[] kj : pairs) {
      assertThat(core.contains(kj[0]) && core.contains(kj[1])).isTrue();
    }
  }

  private static void record(
      boolean found,
      boolean resident,
      long hash,
      String how,
      AtomicLong misses,
      AtomicLong phantoms,
      AtomicReference<String> first) {
    if (found == resident) {
      return;
    }
    (resident ? misses : phantoms).incrementAndGet();
    first.compareAndSet(
        null,
        how + (resident ? " missed resident 0x" : " found absent 0x") + Long.toHexString(hash));
  }
}
