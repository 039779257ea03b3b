package io.github.cuckooguard.spring.support;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * Fresh keys for the tests of a class that share one context and one table, so that tests do not
 * interfere: every key is handed out once. Thread-safe.
 */
public final class TestKeys {

  /** Where definite misses start: past every key {@link #next()} hands out in these tests. */
  private static final long MISS_OFFSET = 1_000_000;

  private final AtomicLong next;

  public TestKeys(long first) {
    this.next = new AtomicLong(first);
  }

  /** A key not handed out before. */
  public long next() {
    return next.getAndIncrement();
  }

  /**
   * A key not handed out before, with no row (it is past the keys that {@link #next()} hands out),
   * for which {@code mightContain} answers false: the guard says "definitely absent".
   */
  public long definiteMiss(LongPredicate mightContain) {
    while (true) {
      long key = MISS_OFFSET + next.getAndIncrement();
      if (!mightContain.test(key)) {
        return key;
      }
    }
  }
}
