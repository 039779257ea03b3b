package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Single-threaded model check of a grown filter whose keys agree on the first table's fingerprint
 * and bucket pair but differ in the bits just above it, so that sub-filters of wider fingerprints
 * hold copies that match some of these keys and not others: a remove then clears, newest table
 * first, a copy that may be another key's (the cross-width remove of FilterCore's class comment).
 * Low fingerprint bits 0 and 1 are both used (0 is stored as 1, at every width).
 *
 * <p>Shadow truth: copies owed per key (adds that returned true minus removes). After every
 * operation every owed key must be reported present by {@link FilterCore#contains} and by {@link
 * FilterCore#contains4}, counted at least as often as owed, and a remove of an owed key must return
 * true. Seeded per case; bounded by a JUnit timeout.
 */
class CrossWidthRemoveModelTest {

  @ParameterizedTest(name = "f={0} b={1} n={2} expansion={3} semi={4} varBits={5}")
  @CsvSource({
    "8, 4, 4, 2, false, 3",
    "8, 4, 4, 1, false, 3",
    "8, 2, 4, 2, false, 2",
    "16, 4, 4, 2, false, 3",
    "16, 4, 4, 1, false, 4",
    "13, 4, 4, 2, false, 3",
    "8, 4, 4, 2, true, 3",
    "15, 4, 4, 1, true, 3",
    "12, 8, 4, 2, false, 3"
  })
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void everyOwedKeyStaysPresent(int f, int b, int n, int expansion, boolean semi, int varBits)
      throws IOException {
    long checks = 0;
    long dumps = 0;
    long ops = 0;
    int maxSub = 1;
    for (int round = 0; round < 60; round++) {
      SplittableRandom rnd = new SplittableRandom(7_000L * f + 100L * b + 10L * expansion + round);
      List<Long> keys = new ArrayList<>();
      long[] hot = {0, 1, 1 + rnd.nextLong((1L << f) - 1)};
      for (long low : hot) {
        for (int v = 0; v < (1 << varBits); v++) {
          for (int l = 0; l < n; l++) {
            long high = (((long) l << 32) / n + 1 + rnd.nextInt(1 << 20)) & 0xFFFF_FFFFL;
            long h = (high << 32) | ((long) v << f) | low;
            if (BucketIndex.primaryIndex(h, n) == l) {
              keys.add(h);
            }
          }
        }
      }
      long[] hs = keys.stream().mapToLong(Long::longValue).toArray();
      int[] owed = new int[hs.length];
      FilterCore core =
          new FilterCore(
              f,
              b,
              n,
              2 + rnd.nextInt(8),
              expansion,
              Math.min(32, f + 1),
              round,
              Sizing.defaultMaxBytes(),
              semi);
      for (int op = 0; op < 600; op++) {
        int id = rnd.nextInt(hs.length);
        int kind = rnd.nextInt(10);
        String what;
        if (owed[id] > 0 && kind < 4) {
          what = "remove " + id;
          assertThat(core.remove(hs[id]))
              .as("remove of owed key, round %d op %d", round, op)
              .isTrue();
          owed[id]--;
        } else if (kind < 8) {
          what = "add " + id;
          if (core.add(hs[id])) {
            owed[id]++;
          }
        } else {
          long[] batch = new long[3];
          int[] ids = new int[3];
          for (int k = 0; k < 3; k++) {
            ids[k] = rnd.nextInt(hs.length);
            batch[k] = hs[ids[k]];
          }
          boolean[] out = new boolean[3];
          core.addAll(batch, out);
          what = "addAll";
          for (int k = 0; k < 3; k++) {
            if (out[k]) {
              owed[ids[k]]++;
            }
          }
        }
        ops++;
        maxSub = Math.max(maxSub, core.subFilters());
        if (op % 97 == 96) {
          // Continue on a copy read back from a dump: the loaded tables' layout (and the single
          // table's specialised paths) must describe the same words.
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          DumpFormat.write(core, "model", out);
          core = DumpFormat.read(new ByteArrayInputStream(out.toByteArray()), "model");
          dumps++;
        }
        for (int i = 0; i < hs.length; i++) {
          if (owed[i] > 0) {
            checks++;
            assertThat(core.contains(hs[i]))
                .as("round %d op %d (%s): key %d (%x) owed %d", round, op, what, i, hs[i], owed[i])
                .isTrue();
            assertThat(core.contains4(hs[i], hs[i], hs[i], hs[i])).isEqualTo(15);
            assertThat(core.count(hs[i])).isGreaterThanOrEqualTo(owed[i]);
          }
        }
      }
    }
    System.out.printf(
        "CrossWidthRemoveModelTest f=%d b=%d n=%d e=%d semi=%b: %d ops, %d checks, max %d"
            + " sub-filters, %d dump round trips%n",
        f, b, n, expansion, semi, ops, checks, maxSub, dumps);
    assertThat(maxSub).isGreaterThanOrEqualTo(3);
  }
}
