package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;

import java.util.List;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Regression: with a fingerprint width that does not divide 64 a slot can span two words, and a
 * write to it is two stores. A lock-free lookup used to trust any match without checking the bucket
 * stamps, so it could match the half-written value and answer true for a key that no state of the
 * filter ever held (not linearizable, although CuckooFilter promises it).
 *
 * <pre>
 * f = 12, b = 4: bucket A = 1 spans bits 48..95; its slot 1 (bits 60..71) spans words 0 and 1.
 *   start       A = [X, _, _, _]
 *   add(G)      G = 0x5A3 goes to slot 1: word 0 gets the low 4 bits (3), then word 1 the rest
 *   lookup(P)   P has fingerprint 3 and bucket A: between the two stores slot 1 reads 3
 * </pre>
 */
public class NoPhantomFingerprintFromAHalfWrittenSlotTest {

  private static final int BUCKETS = 4;
  private static final int A = 1;
  private static final long G = 0x5A3;
  private static final long PHANTOM = G & 0xF;

  private final FilterCore core = new FilterCore(12, 4, BUCKETS, 8, 0, 1);

  public NoPhantomFingerprintFromAHalfWrittenSlotTest() {
    require(core.add(hash(A, 0x777, BUCKETS)), "fill slot 0 of A");
    require(!core.contains(hash(A, PHANTOM, BUCKETS)), "the probe is absent");
  }

  @Operation
  public boolean addSpanningSlot() {
    return core.add(hash(A, G, BUCKETS));
  }

  @Operation
  public boolean containsProbe() {
    return core.contains(hash(A, PHANTOM, BUCKETS));
  }

  @Test
  void lookupNeverMatchesAHalfWrittenFingerprint() {
    new ModelCheckingOptions()
        .iterations(0)
        .addCustomScenario(
            CraftedHashes.parallel(
                getClass(), List.of(List.of("containsProbe"), List.of("addSpanningSlot"))))
        .invocationsPerIteration(300)
        .check(getClass());
  }
}
