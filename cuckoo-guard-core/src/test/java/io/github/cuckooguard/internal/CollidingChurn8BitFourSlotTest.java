package io.github.cuckooguard.internal;

/** {@link FourSlotCollidingChurnScenario} on 8-bit fingerprints. */
public class CollidingChurn8BitFourSlotTest extends FourSlotCollidingChurnScenario {
  public CollidingChurn8BitFourSlotTest() {
    super(8);
  }
}
