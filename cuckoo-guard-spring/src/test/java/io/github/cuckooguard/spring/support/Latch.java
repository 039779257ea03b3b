package io.github.cuckooguard.spring.support;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A one-shot latch whose await fails the test instead of hanging it. */
public final class Latch {

  private final CountDownLatch latch = new CountDownLatch(1);

  public void open() {
    latch.countDown();
  }

  public void await() {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not opened within 30 s");
      }
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new AssertionError(ex);
    }
  }
}
