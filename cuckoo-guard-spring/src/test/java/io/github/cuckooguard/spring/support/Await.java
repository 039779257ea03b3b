package io.github.cuckooguard.spring.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for background work (a warm-up, a rebuild) with a generous bound; not a timing test. */
public final class Await {

  private Await() {}

  public static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what, ex);
      }
    }
  }
}
