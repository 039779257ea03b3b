package io.github.cuckooguard.internal;

import static io.github.cuckooguard.internal.CraftedHashes.alt;
import static io.github.cuckooguard.internal.CraftedHashes.hash;
import static io.github.cuckooguard.internal.CraftedHashes.require;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hiding move, the race every lock-free lookup must survive, as one Lincheck scenario: a reader
 * looks up resident key {@code K} while another thread adds and removes {@code J}, which shares K's
 * fingerprint {@link #F} and bucket pair ({@link #A}, {@link #B}) with the opposite primary bucket.
 * Subclasses build a filter where the add of J lands in A and its remove takes K's copy from B (see
 * {@link CollidingKeyChurnHidesNoResidentKeyTest}): a reader that read A before the add and B after
 * the remove finds no F unless the stamps tell it B changed under it. The model checker explores
 * the interleavings; the sequential specification always answers true for K.
 */
public abstract class HidingMoveScenario {

  static final int BUCKETS = 4;
  static final long F = 0x5A;
  static final int A = 0;
  static final int B = alt(A, F, BUCKETS);
  static final long K = hash(A, F, BUCKETS);
  static final long J = hash(B, F, BUCKETS);

  private final FilterCore core;

  /**
   * @param core a filter holding K in B, set up so that an add of J goes to A
   */
  HidingMoveScenario(FilterCore core) {
    require(alt(B, F, BUCKETS) == A, "J's alternate bucket is A");
    require(core.contains(K), "K is resident");
    this.core = core;
  }

  @Operation
  public boolean containsResident() {
    return core.contains(K);
  }

  @Operation
  public boolean addColliding() {
    return core.add(J);
  }

  @Operation
  public boolean removeColliding() {
    return core.remove(J);
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void residentKeyStaysVisibleWhileACollidingKeyIsAddedAndRemoved() {
    new ModelCheckingOptions()
        .iterations(0)
        .addCustomScenario(
            CraftedHashes.parallel(
                getClass(),
                List.of(List.of("containsResident"), List.of("addColliding", "removeColliding"))))
        .invocationsPerIteration(1_000)
        .check(getClass());
  }
}
