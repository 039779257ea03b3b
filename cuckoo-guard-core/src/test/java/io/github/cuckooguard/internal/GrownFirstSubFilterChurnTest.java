package io.github.cuckooguard.internal;

/**
 * {@link GrownSubFilterCollidingChurnScenario} with a second sub-filter of 20-bit slots, the move
 * in the first one.
 */
public class GrownFirstSubFilterChurnTest extends GrownSubFilterCollidingChurnScenario {
  public GrownFirstSubFilterChurnTest() {
    super(20, false);
  }
}
