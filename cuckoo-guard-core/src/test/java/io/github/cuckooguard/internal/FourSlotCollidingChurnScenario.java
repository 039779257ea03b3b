package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;

/**
 * The hiding move of {@link CollidingKeyChurnHidesNoResidentKeyTest} on 4-slot buckets of 16 and 8
 * bits, whose lookups take the specialised paths of {@link Table} (a match returned at once, the
 * second bucket read only after the first missed, a "no" validated by the stamps).
 *
 * <pre>
 * Buckets A = l1(K) = l2(J) and B = l2(K) = l1(J), fingerprint F shared by K and J.
 *   start        A = [_, X2, X3, X4]   B = [F(K), Y1, Y2, Y3]   (A was full when K was added)
 *   reader       reads A (K's primary): no F
 *   add(J)       B is full, so F goes to A           A = [F, X2, X3, X4]
 *   remove(J)    J's first bucket is B: B's F goes   B = [_, Y1, Y2, Y3]
 *   reader       reads B: no F; only the stamps tell it that B changed under it
 * </pre>
 *
 * Lincheck's model checker explores the interleavings of this one scenario; the sequential
 * specification always answers true for K. A lookup that returned its "no" unvalidated fails here.
 */
public abstract class FourSlotCollidingChurnScenario extends HidingMoveScenario {

  FourSlotCollidingChurnScenario(int bits) {
    super(filled(bits));
  }

  private static FilterCore filled(int bits) {
    FilterCore core = new FilterCore(bits, 4, BUCKETS, 8, 0, 1);
    require(core.tables()[0].kind != PackedBuckets.GENERAL, "a specialised table");
    for (int i = 1; i <= 4; i++) {
      require(core.add(hash(A, 0x10 + i, BUCKETS)), "fill A");
    }
    require(core.add(K), "K into B");
    for (int i = 1; i <= 3; i++) {
      require(core.add(hash(B, 0x20 + i, BUCKETS)), "fill B");
    }
    require(core.remove(hash(A, 0x11, BUCKETS)), "one free slot in A");
    require(core.tables()[0].slotOf(B, F) >= 0 && core.tables()[0].slotOf(A, F) < 0, "F in B");
    return core;
  }
}
