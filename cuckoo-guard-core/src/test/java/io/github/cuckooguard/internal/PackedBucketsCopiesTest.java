package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link PackedBuckets#copies}, the carry-free SWAR count that count() and the copy limit use,
 * equals a slot-by-slot count for every bucket layout (one or two windows, aligned or not), on
 * buckets filled at random from a few fingerprints so that repeats, neighbours and zeros sit in
 * every lane. Seed 5; 20,000 buckets per layout; bound: 0 differences.
 */
class PackedBucketsCopiesTest {

  @ParameterizedTest(name = "f = {0}, b = {1}")
  @CsvSource({
    "4, 2", "4, 4", "4, 8", "7, 4", "8, 2", "8, 4", "8, 8", "9, 8", "12, 4", "13, 4", "16, 4",
    "16, 8", "5, 8", "15, 2"
  })
  void theSwarCopyCountEqualsASlotBySlotCount(int f, int b) {
    int n = 200;
    Table t = new Table(f, b, n, 1, 10);
    SplittableRandom random = new SplittableRandom(5);
    long mask = (1L << f) - 1;
    long[] palette = {0, 1, 2, 3, mask, mask - 1, 1L << (f - 1), (1L << (f - 1)) - 1};
    int differences = 0;
    for (int round = 0; round < 100; round++) {
      for (long bucket = 0; bucket < n; bucket++) {
        for (int j = 0; j < b; j++) {
          long old = t.slot(bucket, j);
          t.write(bucket, j, old, palette[random.nextInt(palette.length)]);
        }
      }
      for (long bucket = 0; bucket < n; bucket++) {
        long fp = palette[1 + random.nextInt(palette.length - 1)];
        int naive = 0;
        for (int j = 0; j < b; j++) {
          naive += t.slot(bucket, j) == fp ? 1 : 0;
        }
        differences += t.copies(bucket, fp) == naive ? 0 : 1;
      }
    }
    assertThat(differences).isZero();
  }
}
