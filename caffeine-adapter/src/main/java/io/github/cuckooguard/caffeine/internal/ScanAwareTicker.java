package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The ticker a guarded cache runs on: the user's ticker, except on a thread inside
 * {@link #rewound}, which reads a time far in the past.
 *
 * <p>Why: Caffeine's key iterator skips entries that have expired but are not evicted yet, and
 * {@code cleanUp()} cannot be relied on to evict all of them (it evicts at most 1,000 a pass,
 * stops early on an access-order queue made stale by dropped read-buffer events, and the timer
 * wheel of variable expiry only advances in ~1 s ticks). An entry skipped that way would be
 * evicted later, after the rebuilt filter was swapped in, and its {@code keyLeft} would then be an
 * unpaired remove. A rebuild scan therefore reads each step of the iterator with the clock rewound
 * by 2<sup>62</sup> ns, so that no entry looks expired and every entry still in the map is
 * emitted. Caffeine compares ticker readings only by difference, so the rewind is wrap-safe.
 *
 * <p>Only the iterator's own {@code hasNext}/{@code next} run rewound; the code that consumes the
 * keys does not, so nothing else ever observes the rewound clock.
 */
public final class ScanAwareTicker implements Ticker {

  /** How far a rewound read lies in the past: ~146 years, more than any entry's age. */
  static final long REWIND_NANOS = 1L << 62;

  private final Ticker delegate;
  private final ThreadLocal<boolean[]> rewound = ThreadLocal.withInitial(() -> new boolean[1]);
  /** Scans in progress; lets {@link #read} skip the thread-local lookup when zero. */
  private final AtomicInteger scans = new AtomicInteger();

  public ScanAwareTicker(Ticker delegate) {
    this.delegate = Objects.requireNonNull(delegate, "ticker");
  }

  @Override
  public long read() {
    long now = delegate.read();
    return scans.get() != 0 && rewound.get()[0] ? now - REWIND_NANOS : now;
  }

  /** Starts a scan on this thread; close it on the same thread. */
  public Scan startScan() {
    scans.incrementAndGet();
    return new Scan(rewound.get());
  }

  @Override
  public String toString() {
    return "ScanAwareTicker[" + delegate + "]";
  }

  /** A scan in progress on one thread. */
  public final class Scan implements AutoCloseable {
    private final boolean[] flag;

    private Scan(boolean[] flag) {
      this.flag = flag;
    }

    /** Runs one iterator step with this thread's clock rewound. */
    public <T> T step(Supplier<T> step) {
      flag[0] = true;
      try {
        return step.get();
      } finally {
        flag[0] = false;
      }
    }

    @Override
    public void close() {
      scans.decrementAndGet();
    }
  }
}
