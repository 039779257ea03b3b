package io.github.cuckooguard.internal;

/**
 * {@link GrownSubFilterCollidingChurnScenario} with a second sub-filter of 13-bit slots, the move
 * in the second one.
 */
public class GrownOneWindowSubFilterChurnTest extends GrownSubFilterCollidingChurnScenario {
  public GrownOneWindowSubFilterChurnTest() {
    super(13, true);
  }
}
