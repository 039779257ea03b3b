package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.alt;
import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;

import java.util.List;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Regression: {@code count} read the slots of both buckets without the stamps that {@code contains}
 * checks, so a kick moving the counted fingerprint made it count the copy twice (copied to its new
 * slot, not yet cleared from the old one) or not at all (read the new slot before the copy arrived
 * and the old one after it left): CF.COUNT below the number of adds of a key that was never
 * removed.
 *
 * <pre>
 * Buckets A = l1(K) and B = alt(A, F), C = alt(A, fp(Z)) with C != B, 2 slots each.
 *   start      A = [F(K), X]   B = [_, _]   C = [C1, C2]
 *   add(Z)     A and C are full: the kick search moves F from A to B and puts Z in A
 *   count(K)   must be 1 at every instant
 * </pre>
 */
public class CountIsExactWhileAKickMovesTheFingerprintTest {

  private static final int BUCKETS = 4;
  private static final int A = 0;
  private static final long F = fingerprintWithAlt(-1);
  private static final int B = alt(A, F, BUCKETS);
  private static final long FZ = fingerprintWithAlt(B);
  private static final int C = alt(A, FZ, BUCKETS);

  private final FilterCore core = new FilterCore(8, 2, BUCKETS, 8, 0, 1);

  public CountIsExactWhileAKickMovesTheFingerprintTest() {
    require(
        core.add(hash(A, F, BUCKETS)) && core.add(hash(A, 0x11, BUCKETS)), "fill A with K first");
    require(core.add(hash(C, 0x21, BUCKETS)) && core.add(hash(C, 0x22, BUCKETS)), "fill C");
    require(C != B && core.count(hash(A, F, BUCKETS)) == 1, "K counted once");
  }

  /** The first fingerprint from 0x40 up whose alternate bucket of A is not {@code avoid}. */
  private static long fingerprintWithAlt(int avoid) {
    for (long fp = 0x40; ; fp++) {
      if (alt(A, fp, BUCKETS) != avoid) {
        return fp;
      }
    }
  }

  @Operation
  public int countResident() {
    return core.count(hash(A, F, BUCKETS));
  }

  @Operation
  public boolean addKicking() {
    return core.add(hash(A, FZ, BUCKETS));
  }

  @Test
  void countNeverSeesAMovingFingerprintTwiceOrNotAtAll() {
    new ModelCheckingOptions()
        .iterations(0)
        .addCustomScenario(
            CraftedHashes.parallel(
                getClass(), List.of(List.of("countResident"), List.of("addKicking"))))
        .invocationsPerIteration(1_000)
        .check(getClass());
  }
}
