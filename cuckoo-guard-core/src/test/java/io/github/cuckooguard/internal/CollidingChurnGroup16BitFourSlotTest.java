package io.github.cuckooguard.internal;

/** {@link FourSlotGroupHidingMoveScenario} on 16-bit fingerprints. */
public class CollidingChurnGroup16BitFourSlotTest extends FourSlotGroupHidingMoveScenario {
  public CollidingChurnGroup16BitFourSlotTest() {
    super(16);
  }
}
