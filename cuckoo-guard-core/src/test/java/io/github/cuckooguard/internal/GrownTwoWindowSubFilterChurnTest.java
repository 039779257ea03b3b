package io.github.cuckooguard.internal;

/**
 * {@link GrownSubFilterCollidingChurnScenario} with a second sub-filter of 20-bit slots, the move
 * in the second one.
 */
public class GrownTwoWindowSubFilterChurnTest extends GrownSubFilterCollidingChurnScenario {
  public GrownTwoWindowSubFilterChurnTest() {
    super(20, true);
  }
}
