package io.github.cuckooguard.spring.support;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts transactions begun by a (real) transaction manager. */
public final class TransactionCounter {

  private final AtomicInteger begun = new AtomicInteger();

  public void begun() {
    begun.incrementAndGet();
  }

  public int count() {
    return begun.get();
  }
}
