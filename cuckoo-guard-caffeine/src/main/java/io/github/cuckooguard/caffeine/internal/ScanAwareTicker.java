package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The ticker a guarded cache runs on: the user's ticker, except on the thread that is stepping a
 * rebuild's key iterator ({@link #rewind}), which reads a time far in the past.
 *
 * <p>Why: {@link CacheKeySource} must emit the keys of entries that expired but are not evicted yet
 * (tracked, hidden from Caffeine's key iterator; see {@code KeySource}). Rewound by 2<sup>62</sup>
 * ns, no entry looks expired to the iterator, so every entry still in the map is emitted. Caffeine
 * compares ticker readings only by difference, so the rewind is wrap-safe.
 *
 * <p>A guard runs one scan at a time, so one field names the rewound thread; every other read costs
 * a volatile read and a comparison.
 */
public final class ScanAwareTicker implements Ticker {

  /** How far a rewound read lies in the past: ~146 years, more than any entry's age. */
  static final long REWIND_NANOS = 1L << 62;

  private final Ticker delegate;
  private volatile @Nullable Thread rewound;

  public ScanAwareTicker(Ticker delegate) {
    this.delegate = Objects.requireNonNull(delegate, "ticker");
  }

  @Override
  public long read() {
    long now = delegate.read();
    return rewound == Thread.currentThread() ? now - REWIND_NANOS : now;
  }

  /** Rewinds the clock of the current thread until {@link #restore}. */
  void rewind() {
    rewound = Thread.currentThread();
  }

  /** Ends {@link #rewind}. */
  void restore() {
    rewound = null;
  }

  @Override
  public String toString() {
    return "ScanAwareTicker[" + delegate + "]";
  }
}
