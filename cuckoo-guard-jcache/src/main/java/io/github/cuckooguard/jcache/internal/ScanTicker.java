package io.github.cuckooguard.jcache.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ticker a Caffeine-JCache cache created by the guarded manager runs on: the configured ticker,
 * except on a thread inside a {@link #startScan scan}, which reads a time far in the past.
 *
 * <p>Why: Caffeine's map iterator (and {@code CacheProxy}'s) skips entries that have expired but
 * are not evicted yet. Such an entry is still tracked, and its later eviction fires a leave ({@link
 * CaffeineRemovals}); a rebuild whose scan skipped it would swap in a filter without its copy, and
 * the leave would then take a colliding key's copy. The scan therefore reads each iterator step
 * with the clock rewound by 2<sup>62</sup> ns, so no entry looks expired; Caffeine compares ticker
 * readings only by difference, so the rewind is wrap-safe. The same device as the
 * cuckoo-guard-caffeine's {@code ScanAwareTicker} (not shared: adapters depend on the core only).
 *
 * <p>Only the iterator's {@code hasNext}/{@code next} run rewound; nothing else observes it.
 */
final class ScanTicker implements Ticker {

  /** ~146 years, more than any entry's age. */
  static final long REWIND_NANOS = 1L << 62;

  private final Ticker delegate;
  private final ThreadLocal<boolean[]> rewound = ThreadLocal.withInitial(() -> new boolean[1]);
  private final AtomicInteger scans = new AtomicInteger();

  ScanTicker(Ticker delegate) {
    this.delegate = Objects.requireNonNull(delegate, "ticker");
  }

  @Override
  public long read() {
    long now = delegate.read();
    return scans.get() != 0 && rewound.get()[0] ? now - REWIND_NANOS : now;
  }

  /** Runs {@code step} on this thread with the clock rewound. */
  <T> T rewound(java.util.function.Supplier<T> step) {
    boolean[] flag = rewound.get();
    scans.incrementAndGet();
    flag[0] = true;
    try {
      return step.get();
    } finally {
      flag[0] = false;
      scans.decrementAndGet();
    }
  }

  @Override
  public String toString() {
    return "ScanTicker[" + delegate + "]";
  }
}
