package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The add of an ungrown 16- or 8-bit plain table ({@link Table#tryPlaceFirst}, then, if both
 * buckets are full, straight to {@link Table#kickInsert}) against the general path it replaced (the
 * same first step by {@link Table#tryPlace}, then the kicks), replayed on a copy of the table
 * before every add: same answer, same words after, word for word. A refused add must leave the
 * table unchanged (expansion 0), and an add that grows the filter must leave the first table as the
 * old path's failed kick search did (expansion 2). Keys collide on purpose (a few fingerprints at
 * every bucket, every hash owned twice) at loads up to full, and every key owed a copy stays found
 * by {@link FilterCore#contains} and {@link FilterCore#contains4}.
 */
class BothFullShortcutModelTest {

  @ParameterizedTest(name = "f={0} n={1} kicks={2} expansion={3}")
  @CsvSource({
    "16, 4, 0, 0",
    "16, 8, 4, 0",
    "16, 64, 16, 0",
    "16, 1024, 64, 0",
    "8, 4, 0, 0",
    "8, 8, 4, 0",
    "8, 64, 16, 0",
    "8, 1024, 64, 0",
    "16, 8, 4, 2",
    "8, 8, 4, 2",
    "8, 64, 16, 2"
  })
  void theShortcutAddsExactlyAsTheGeneralPath(int f, int n, int maxKicks, int expansion) {
    long mask = (1L << f) - 1;
    long bothFull = 0;
    long kicked = 0;
    long refused = 0;
    long grown = 0;
    long adds = 0;
    int rounds = n >= 1024 ? 2 : 40;
    int checkEvery = n >= 1024 ? 4095 : 15;
    for (int round = 0; round < rounds; round++) {
      SplittableRandom rnd = new SplittableRandom(1_000_003L * f + 7919L * n + round);
      FilterCore core = new FilterCore(f, 4, n, maxKicks, expansion, f + 1, round, 1L << 30, false);
      Table t = core.tables()[0];
      assertThat(t.kind).isNotEqualTo(PackedBuckets.GENERAL);
      List<Long> distinct = new ArrayList<>();
      int hot = 1 + rnd.nextInt(3);
      for (int h = 0; h < hot; h++) {
        long fp = 1 + rnd.nextLong(mask);
        for (int l = 0; l < n; l++) {
          distinct.add(CraftedHashes.hash(l, fp, n));
        }
      }
      for (int k = 0; k < 4 * n; k++) {
        distinct.add(rnd.nextLong());
      }
      long[] keys = new long[2 * distinct.size()];
      for (int k = 0; k < distinct.size(); k++) {
        keys[2 * k] = distinct.get(k);
        keys[2 * k + 1] = distinct.get(k);
      }
      int[] owed = new int[keys.length];
      int ops = n >= 1024 ? 4 * n : 30 * n + 200;
      for (int op = 0; op < ops && core.subFilters() == 1; op++) {
        int id = rnd.nextInt(keys.length);
        long h = keys[id];
        double load = (double) t.items / t.slots();
        boolean add = owed[id] == 0 || rnd.nextDouble() < (load < 0.97 ? 0.8 : 0.35);
        if (!add) {
          assertThat(core.remove(h)).as("remove of an owed key").isTrue();
          owed[id]--;
          continue;
        }
        // The old path on a copy: tryPlace, else kickInsert (table unchanged if both fail).
        long fp = t.fingerprintOf(h);
        int l1 = BucketIndex.primaryIndex(h, n);
        int l2 = BucketIndex.altIndex(l1, fp, n, n / 2);
        boolean full = t.emptySlot(l1) < 0 && t.emptySlot(l2) < 0;
        Table ref = new Table(f, 4, n, 1, maxKicks, t.data.clone(), f);
        boolean refStored = ref.tryPlace(fp, l1, l2) || ref.kickInsert(fp, l1, l2, 0);
        long[] before = t.data.clone();
        boolean stored = core.add(h);
        adds++;
        if (full) {
          bothFull++;
        }
        if (core.subFilters() > 1) {
          grown++;
          assertThat(refStored).as("grew where the old path placed the key").isFalse();
          assertThat(t.data).as("first table after a failed kick search").isEqualTo(before);
          if (stored) {
            owed[id]++;
          }
          checkOwed(core, keys, owed);
          break;
        }
        assertThat(stored)
            .as("add %d of round %d (both full: %b)", op, round, full)
            .isEqualTo(refStored);
        assertThat(t.data).as("words after add %d of round %d", op, round).isEqualTo(ref.data);
        if (stored) {
          owed[id]++;
          if (full) {
            kicked++;
          }
        } else {
          refused++;
          assertThat(t.data).isEqualTo(before);
        }
        if ((op & checkEvery) == 0) {
          checkOwed(core, keys, owed);
        }
      }
      checkOwed(core, keys, owed);
    }
    System.out.printf(
        "BothFullShortcutModelTest f=%d n=%d kicks=%d e=%d: %d adds, %d both full, %d stored by"
            + " kicks, %d refused, %d grown%n",
        f, n, maxKicks, expansion, adds, bothFull, kicked, refused, grown);
    assertThat(bothFull).as("adds that found both buckets full").isGreaterThan(20);
  }

  private static void checkOwed(FilterCore core, long[] keys, int[] owed) {
    for (int i = 0; i + 4 <= keys.length; i += 4) {
      int found = core.contains4(keys[i], keys[i + 1], keys[i + 2], keys[i + 3]);
      for (int k = 0; k < 4; k++) {
        if (owed[i + k] > 0) {
          assertThat(core.contains(keys[i + k])).as("contains of owed id %d", i + k).isTrue();
          assertThat(found & (1 << k)).as("contains4 lane of owed id %d", i + k).isNotZero();
        }
      }
    }
    for (int i = 0; i < keys.length; i += 2) {
      int total = owed[i] + owed[i + 1];
      if (total > 0) {
        assertThat(core.count(keys[i])).as("count of id %d", i).isGreaterThanOrEqualTo(total);
      }
    }
  }
}
