package io.github.cuckooguard.caffeine;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test moves by hand. */
final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long read() {
    return nanos.get();
  }

  FakeTicker advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    return this;
  }
}
