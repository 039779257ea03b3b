package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;

/**
 * Regression: an add and a remove of a key {@code J} that collides with a resident key {@code K}
 * (same fingerprint, same bucket pair, opposite primary bucket) used to hide {@code K} from a
 * lock-free reader.
 *
 * <pre>
 * Buckets A = l1(K) = l2(J) and B = l2(K) = l1(J), 2 slots each, fingerprint F shared by K and J.
 *   start        A = [X2, _ ]   B = [F(K), Y]     (A filled first, so K went to B; X1 removed)
 *   reader       reads A: no F
 *   add(J)       B is full, so F goes to A          A = [X2, F]   B = [F, Y]
 *   remove(J)    J's first bucket is B: B's F goes  A = [X2, F]   B = [_, Y]
 *   reader       reads B: no F  → mightContain(K) == false although K was never removed
 * </pre>
 *
 * At every instant one copy of F sat in K's buckets, but the pair of plain writes moved it from the
 * bucket the reader had not read yet to the one it had already read, without touching the bucket
 * stamps that only kicks used to bump. Lincheck's model checker explores the interleavings of this
 * one scenario; the sequential specification (this class run by one thread) always answers true for
 * K.
 */
public class CollidingKeyChurnHidesNoResidentKeyTest extends HidingMoveScenario {

  private static final long X1 = hash(A, 0x11, BUCKETS);
  private static final long X2 = hash(A, 0x22, BUCKETS);
  private static final long Y = hash(B, 0x33, BUCKETS);

  public CollidingKeyChurnHidesNoResidentKeyTest() {
    super(filled());
  }

  private static FilterCore filled() {
    FilterCore core = new FilterCore(8, 2, BUCKETS, 8, 0, 1);
    require(
        core.add(X1) && core.add(X2) && core.add(K) && core.add(Y) && core.remove(X1),
        "fill A and B");
    return core;
  }
}
