package io.github.cuckooguard.internal;

/** {@link FourSlotCollidingChurnScenario} on 16-bit fingerprints. */
public class CollidingChurn16BitFourSlotTest extends FourSlotCollidingChurnScenario {
  public CollidingChurn16BitFourSlotTest() {
    super(16);
  }
}
