package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.alt;
import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A lookup's bucket reads are plain loads, and the Java memory model does not order two plain loads
 * of one thread (the JIT may emit them in either order, and ARM or POWER cores may perform them out
 * of order): a bucket that spans two words (13-bit slots of 4, 52 bits; or a bucket of two 64-bit
 * windows, 8 slots of 16 bits) may be read high word first. Only the stamps order a lookup against
 * the writer, so a write sequence that can hide a resident fingerprint from one of the two load
 * orders must change a stamp.
 *
 * <pre>
 * Bucket X, its low word w and high word w + 1; fingerprint F of resident key K, in slot lo (word
 * w); slot hi (word w + 1) free, the slots between full; the other bucket of the pair holds no F.
 *   reader      loads word w + 1: no F
 *   add(J)      J has K's hash: the first free slot of X is hi        X = [F, ..., F]
 *   remove(J)   the first slot of X holding F is lo                   X = [_, ..., F]
 *   reader      loads word w: no F; the other bucket: no F; stamps unchanged → K reported absent
 * </pre>
 *
 * This test replays that interleaving with a reader that issues the loads in that order, using the
 * same bucket arithmetic as {@link Table#containsHash}, and requires the replayed lookup to either
 * find F or see a changed stamp (and retry). It is the load order the memory model allows, not one
 * that a test on x86 can force with the real reader.
 */
class DeleteLeavingACopyIsStampedTest {

  private static final long F = 0x5A;

  @ParameterizedTest(name = "f={0} b={1}")
  @CsvSource({"13, 4", "12, 4", "16, 8", "13, 8"})
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aLookupReadingTheHighWordFirstIsNotFooledByAnUnstampedMove(int f, int b) {
    int n = 8;
    FilterCore core = new FilterCore(f, b, n, 8, 0, 1);
    Table t = core.tables()[0];
    // A bucket X with a slot lo in its first word, a slot hi > lo in the next word, neither
    // spanning.
    int x = -1;
    int lo = -1;
    int hi = -1;
    search:
    for (int bucket = 0; bucket < n; bucket++) {
      long start = (long) bucket * t.bucketBits;
      int w = (int) (start >>> 6);
      for (int j = 0; j < b; j++) {
        for (int k = j + 1; k < b; k++) {
          long pj = start + (long) j * f;
          long pk = start + (long) k * f;
          if (!t.spans(bucket, j)
              && !t.spans(bucket, k)
              && (pj >>> 6) == w
              && (pk >>> 6) == w + 1) {
            x = bucket;
            lo = j;
            hi = k;
            break search;
          }
        }
      }
    }
    require(x >= 0, "a bucket with slots in two words");
    int y = alt(x, F, n);
    long k = hash(x, F, n);
    // Slots 0 .. lo-1 and lo+1 .. hi-1 hold other fingerprints of X's; K sits in slot lo.
    for (int j = 0; j < hi; j++) {
      long fill = j == lo ? k : hash(x, 0x100 + j, n);
      require(core.add(fill), "fill slot " + j);
    }
    require(t.slot(x, lo) == F && t.slot(x, hi) == 0, "K in slot lo, slot hi free");
    require(t.slotOf(y, F) < 0, "the other bucket holds no F");

    // The replayed lookup of K, loads in the order: stamps, X's high word, [writer], X's low word,
    // Y's words, stamps again.
    long[] d = t.data;
    int sx = t.stripe(x);
    int sy = t.stripe(y);
    long v1 = (long) PackedBuckets.LONGS.getAcquire(t.stamps, sx);
    long v2 = (long) PackedBuckets.LONGS.getAcquire(t.stamps, sy);
    long px = (long) x * t.bucketBits;
    int wx = (int) (px >>> 6);
    long highWord = d[wx + 1];

    require(core.add(k), "add(J), J with K's hash: into slot hi");
    require(core.remove(k), "remove(J): clears the first copy, slot lo");
    require(core.contains(k) && core.count(k) == 1, "K still resident, one copy");

    // What the reader saw: every word as loaded after the writer, except X's high word.
    long[] seen = d.clone();
    seen[wx + 1] = highWord;
    boolean found = holds(t, seen, x, F) || holds(t, seen, y, F);
    VarHandle.acquireFence();
    long u1 = (long) PackedBuckets.LONGS.getOpaque(t.stamps, sx);
    long u2 = (long) PackedBuckets.LONGS.getOpaque(t.stamps, sy);
    boolean validated = ((v1 | v2) & 1) == 0 && u1 == v1 && u2 == v2;
    assertThat(found || !validated)
        .as(
            "f=%d b=%d bucket %d: F moved from slot %d (word %d) to slot %d (word %d) without a"
                + " stamp change, so a lookup that loaded the high word first reports resident K"
                + " absent",
            f, b, x, lo, wx, hi, wx + 1)
        .isTrue();
  }

  /** True if some slot of {@code bucket}, read from {@code words} in the table's layout, is fp. */
  private static boolean holds(Table t, long[] words, int bucket, long fp) {
    for (int j = 0; j < t.bucketSize; j++) {
      long pos = (long) bucket * t.bucketBits + (long) j * t.fingerprintBits;
      int w = (int) (pos >>> 6);
      int off = (int) pos & 63;
      long v = ((words[w] >>> off) | ((words[w + 1] << 1) << (63 - off))) & t.slotMask;
      if (v == fp) {
        return true;
      }
    }
    return false;
  }
}
