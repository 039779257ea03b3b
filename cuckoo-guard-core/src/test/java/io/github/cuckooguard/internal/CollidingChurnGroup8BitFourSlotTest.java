package io.github.cuckooguard.internal;

/** {@link FourSlotGroupHidingMoveScenario} on 8-bit fingerprints. */
public class CollidingChurnGroup8BitFourSlotTest extends FourSlotGroupHidingMoveScenario {
  public CollidingChurnGroup8BitFourSlotTest() {
    super(8);
  }
}
