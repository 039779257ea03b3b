package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.require;

/**
 * The hiding move of {@link CollidingKeyChurnHidesNoResidentKeyTest}, played in one sub-filter of a
 * grown filter, whose lookups take {@link Table#containsIn} (the key's pair computed once, each
 * sub-filter read with its parameters in locals and validated by its own stamps). Two sub-filters
 * of one segment each (expansion 1): the first of 8-bit slots, the second of {@code bits}-bit slots
 * (20 bits: buckets of two 64-bit windows, the width growth appends; 13 bits: one unaligned
 * window).
 *
 * <pre>
 * Buckets A = l1(K) = l2(J) and B = l2(K) = l1(J), fingerprint F shared by K and J at both widths.
 *   start        sub-filter 0: A and B full of other fingerprints (an add of J passes it by)
 *                sub-filter 1 (or 0): A = [_, X2, X3, X4]   B = [F(K), Y1, Y2, Y3]
 *   reader       reads A: no F
 *   add(J)       B is full, so F goes to A           A = [F, X2, X3, X4]
 *   remove(J)    newest sub-filter first, J's first bucket B: B's F goes   B = [_, Y1, Y2, Y3]
 *   reader       reads B: no F; only the stamps tell it that B changed under it
 * </pre>
 *
 * Lincheck's model checker explores the interleavings of this one scenario; the sequential
 * specification always answers true for K. A grown lookup that returns its "no" unvalidated fails
 * here (checked by hand: with the stamp check of {@code containsIn} replaced by {@code true}, the
 * model checker reports {@code containsResident} returning false).
 */
public abstract class GrownSubFilterCollidingChurnScenario extends HidingMoveScenario {

  /**
   * @param bits the second sub-filter's slot width
   * @param inNewest true: the move happens in the second (newest) sub-filter, the first one's pair
   *     full; false: in the first, the second empty
   */
  GrownSubFilterCollidingChurnScenario(int bits, boolean inNewest) {
    super(grown(bits, inNewest));
  }

  private static FilterCore grown(int bits, boolean inNewest) {
    Table first = new Table(8, 4, BUCKETS, 1, 8, null, 8);
    Table second = new Table(bits, 4, BUCKETS, 1, 8, null, 8);
    Table moving = inNewest ? second : first;
    if (inNewest) {
      for (int i = 1; i <= 4; i++) {
        require(first.tryPlace(0x60 + i, A, B), "fill the first sub-filter's A");
        require(first.tryPlace(0x70 + i, B, A), "fill the first sub-filter's B");
      }
    }
    for (int i = 1; i <= 4; i++) {
      require(moving.tryPlace(0x10 + i, A, B), "fill A");
    }
    require(moving.tryPlace(F, A, B) && moving.slotOf(B, F) >= 0, "K into B");
    for (int i = 1; i <= 3; i++) {
      require(moving.tryPlace(0x20 + i, B, A), "fill B");
    }
    require(moving.delete(0x11, A, B), "one free slot in A");
    require(moving.slotOf(A, F) < 0, "no F in A");
    require(second.windows == (bits > 16 ? 2 : 1), "the windows the width gives");
    FilterCore core =
        new FilterCore(
            8, 4, BUCKETS, 8, 1, bits, 1, new Table[] {first, second}, 12, 1, 13, 1 << 20);
    require(core.subFilters() == 2, "a grown filter");
    return core;
  }
}
