package io.github.cuckooguard.boot;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes. */
final class Awaits {

  private Awaits() {}

  static void until(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " did not happen within " + timeout);
      }
      Thread.sleep(20);
    }
  }
}
