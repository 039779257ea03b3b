package io.github.cuckooguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The semi-sorted codec on its own: the rank of sorted nibble 4-tuples is a bijection onto [0,
 * 3876) (every one of the 3,876 combinations, exhaustively), and a bucket encodes and decodes every
 * multiset of fingerprints, with matches, copies and slot lookups equal to a plain scan of the four
 * fingerprints, at every width the layout takes.
 */
@Timeout(60)
class SemiSortedBucketsTest {

  @Test
  void everySortedNibbleTupleHasItsOwnRankAndDecodesBack() {
    boolean[] seen = new boolean[SemiSortedBuckets.COMBINATIONS];
    int tuples = 0;
    for (int a = 0; a < 16; a++) {
      for (int b = a; b < 16; b++) {
        for (int c = b; c < 16; c++) {
          for (int d = c; d < 16; d++) {
            int r = SemiSortedBuckets.rank(a, b, c, d);
            assertThat(r).isBetween(0, SemiSortedBuckets.COMBINATIONS - 1);
            assertThat(seen[r]).as("rank %s of (%s %s %s %s) taken twice", r, a, b, c, d).isFalse();
            seen[r] = true;
            assertThat(
                    new int[] {
                      SemiSortedBuckets.nibble(r, 0),
                      SemiSortedBuckets.nibble(r, 1),
                      SemiSortedBuckets.nibble(r, 2),
                      SemiSortedBuckets.nibble(r, 3)
                    })
                .containsExactly(a, b, c, d);
            tuples++;
          }
        }
      }
    }
    assertThat(tuples).isEqualTo(3876);
    for (boolean s : seen) {
      assertThat(s).isTrue();
    }
    assertThat(SemiSortedBuckets.COMBINATIONS)
        .isLessThanOrEqualTo(1 << SemiSortedBuckets.RANK_BITS);
  }

  /**
   * Every one of the 3,876 nibble combinations, with random low bits and in a random slot order,
   * stored at every bucket position of a word (so buckets inside a word and across two), decodes to
   * the same sorted fingerprints at every width.
   */
  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {4, 5, 8, 12, 13, 16})
  void everyCombinationRoundTripsAtEveryBucketPosition(int f) {
    int buckets = 64;
    long[] words = new long[Table.wordCount(f - 1, 4, buckets, 1)];
    SemiSortedBuckets s = new SemiSortedBuckets(f, words);
    assertThat(s.bucketBits).isEqualTo(4 * (f - 1));
    SplittableRandom random = new SplittableRandom(f);
    int r = f - 4;
    int combos = 0;
    for (int a = 0; a < 16; a++) {
      for (int b = a; b < 16; b++) {
        for (int c = b; c < 16; c++) {
          for (int d = c; d < 16; d++) {
            long[] fps = {fp(a, r, random), fp(b, r, random), fp(c, r, random), fp(d, r, random)};
            long[] order = shuffled(fps, random);
            long bucket = combos % buckets;
            long bits = s.encodeUnsorted(order[0], order[1], order[2], order[3]);
            assertThat(bits & ~s.bucketMask).isZero();
            writeBits(s, bucket, bits);
            long[] sorted = fps.clone();
            Arrays.sort(sorted);
            for (int j = 0; j < 4; j++) {
              assertThat(s.slot(bucket, j)).isEqualTo(sorted[j]);
            }
            checkQueries(s, bucket, sorted, random);
            writeBits(s, bucket, 0);
            combos++;
          }
        }
      }
    }
    assertThat(combos).isEqualTo(3876);
    assertThat(words).containsOnly(0L);
  }

  /** replace() keeps the bucket a sorted multiset, equal to a plain model after every write. */
  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {4, 7, 13, 16})
  void replaceKeepsTheMultisetOfAPlainModel(int f) {
    int buckets = 37;
    long[] words = new long[Table.wordCount(f - 1, 4, buckets, 1)];
    SemiSortedBuckets s = new SemiSortedBuckets(f, words);
    long[][] model = new long[buckets][4];
    SplittableRandom random = new SplittableRandom(100 + f);
    long max = (1L << f) - 1;
    for (int step = 0; step < 200_000; step++) {
      int bucket = random.nextInt(buckets);
      long[] m = model[bucket];
      int j = random.nextInt(4);
      long old = m[j];
      // Few distinct fingerprints make duplicates common.
      long next = random.nextInt(3) == 0 ? 0 : 1 + random.nextLong(Math.min(max, 24));
      s.replace(bucket, old, next);
      m[j] = next;
      long[] sorted = m.clone();
      Arrays.sort(sorted);
      for (int k = 0; k < 4; k++) {
        assertThat(s.slot(bucket, k)).isEqualTo(sorted[k]);
      }
      checkQueries(s, bucket, sorted, random);
    }
  }

  private static void checkQueries(
      SemiSortedBuckets s, long bucket, long[] sorted, SplittableRandom random) {
    long max = (1L << s.fingerprintBits) - 1;
    for (int q = 0; q < 6; q++) {
      long fp = q < 4 ? sorted[q] : 1 + random.nextLong(max);
      if (fp == 0) {
        assertThat(s.freeSlot(bucket)).isZero();
        continue;
      }
      int copies = 0;
      for (long x : sorted) {
        copies += x == fp ? 1 : 0;
      }
      assertThat(s.copies(bucket, fp)).isEqualTo(copies);
      assertThat(s.matches(bucket, bucket, fp)).isEqualTo(copies > 0);
      int at = s.slotOf(bucket, fp);
      assertThat(at >= 0).isEqualTo(copies > 0);
      if (at >= 0) {
        assertThat(sorted[at]).isEqualTo(fp);
      }
    }
    assertThat(s.freeSlot(bucket) == 0).isEqualTo(sorted[0] == 0);
  }

  private static long fp(int nibble, int lowBits, SplittableRandom random) {
    return ((long) nibble << lowBits) | (lowBits == 0 ? 0 : random.nextLong(1L << lowBits));
  }

  private static long[] shuffled(long[] fps, SplittableRandom random) {
    long[] o = fps.clone();
    for (int i = o.length - 1; i > 0; i--) {
      int k = random.nextInt(i + 1);
      long t = o[i];
      o[i] = o[k];
      o[k] = t;
    }
    return o;
  }

  /** Sets {@code bucket}'s bits to {@code bits} through the codec's own store (from any state). */
  private static void writeBits(SemiSortedBuckets s, long bucket, long bits) {
    long pos = bucket * s.bucketBits;
    for (int i = 0; i < s.bucketBits; i++) {
      long p = pos + i;
      int w = (int) (p >>> 6);
      long mask = 1L << (p & 63);
      s.data[w] = ((bits >>> i) & 1) != 0 ? s.data[w] | mask : s.data[w] & ~mask;
    }
    assertThat(s.read(bucket)).isEqualTo(bits);
  }
}
