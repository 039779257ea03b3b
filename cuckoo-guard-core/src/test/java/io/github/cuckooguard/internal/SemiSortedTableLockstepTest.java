package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A semi-sorted table and a plain one of the same shape, driven by the same random places and
 * deletes (no kicks, so both choose the same bucket for every write: the first with a free slot,
 * the first holding the fingerprint), hold the same multiset of fingerprints in every bucket at
 * every step, answer every lookup and count alike, and audit alike (occupied slots, clear padding).
 * Few distinct fingerprints and few buckets make duplicates and full buckets common.
 */
@Timeout(120)
class SemiSortedTableLockstepTest {

  @ParameterizedTest(name = "f={0} buckets={1} seed={2}")
  @CsvSource({"4, 6, 1", "5, 10, 2", "9, 8, 3", "13, 14, 4", "13, 1000, 5", "16, 6, 6"})
  void semiSortedTableHoldsThePlainTablesMultisetsAfterEveryWrite(int f, int n, long seed) {
    Table plain = new Table(f, 4, n, 1, 100, null, f, false);
    Table semi = new Table(f, 4, n, 1, 100, null, f, true);
    assertThat(plain.semi).isNull();
    assertThat(semi.semi).isNotNull();
    assertThat(semi.data.length)
        .isEqualTo(Table.wordCount(f - 1, 4, n, 1))
        .isLessThanOrEqualTo(plain.data.length);
    SplittableRandom random = new SplittableRandom(seed);
    long fpMask = (1L << f) - 1;
    long[] universe = new long[Math.max(8, n)];
    for (int i = 0; i < universe.length; i++) {
      // Fingerprints from a small set, so that keys share them.
      long fp = 1 + random.nextLong(Math.min(fpMask, 40));
      universe[i] = (random.nextLong() & ~fpMask) | fp;
    }
    List<Long> held = new ArrayList<>();
    int places = 0;
    int deletes = 0;
    for (int step = 0; step < 60_000; step++) {
      long h =
          random.nextInt(3) == 0 && !held.isEmpty()
              ? held.get(random.nextInt(held.size()))
              : universe[random.nextInt(universe.length)];
      long fp = plain.fingerprintOf(h);
      assertThat(semi.fingerprintOf(h)).isEqualTo(fp);
      long b1 = BucketIndex.primaryIndex(h, n);
      long b2 = plain.alt((int) b1, fp);
      if (random.nextInt(100) < (held.size() > 3 * n ? 35 : 60)) {
        boolean placed = plain.tryPlace(fp, b1, b2);
        assertThat(semi.tryPlace(fp, b1, b2)).isEqualTo(placed);
        if (placed) {
          held.add(h);
          places++;
        }
      } else {
        boolean deleted = plain.delete(fp, b1, b2);
        assertThat(semi.delete(fp, b1, b2)).isEqualTo(deleted);
        if (deleted) {
          held.remove(Long.valueOf(h));
          deletes++;
        }
      }
      assertThat(semi.contains(fp, b1, b2)).isEqualTo(plain.contains(fp, b1, b2));
      assertThat(semi.count(fp, b1, b2)).isEqualTo(plain.count(fp, b1, b2));
      assertThat(multiset(semi, b1)).isEqualTo(multiset(plain, b1));
      assertThat(multiset(semi, b2)).isEqualTo(multiset(plain, b2));
      if (step % 5_000 == 0) {
        for (long b = 0; b < n; b++) {
          assertThat(multiset(semi, b)).isEqualTo(multiset(plain, b));
        }
        assertThat(TableAudit.countOccupied(semi)).isEqualTo(TableAudit.countOccupied(plain));
        assertThat(TableAudit.paddingIsClear(semi)).isTrue();
      }
    }
    assertThat(semi.items).isEqualTo(plain.items);
    assertThat(places).isGreaterThan(1000);
    assertThat(deletes).isGreaterThan(1000);
  }

  private static long[] multiset(Table t, long bucket) {
    long[] s = new long[4];
    for (int j = 0; j < 4; j++) {
      s[j] = t.read(bucket, j);
    }
    Arrays.sort(s);
    return s;
  }
}
