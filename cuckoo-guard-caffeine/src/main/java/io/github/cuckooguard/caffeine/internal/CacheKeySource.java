package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.cuckooguard.KeySource;
import java.util.Iterator;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The rebuild source of a guarded cache: a plain scan of the raw cache's keys, with the clock
 * rewound for the iterator's own steps ({@link ScanAwareTicker}).
 *
 * <p>The {@link KeySource} contract asks for (1) every key visible for the whole call, which the
 * weakly consistent iterator of Caffeine's map gives, and (2) every tracked key hidden from the
 * iterator: Caffeine's iterator skips entries that expired but are not evicted yet, and their
 * eviction (a leave) may come after the rebuilt filter is swapped in, where it would be an unpaired
 * remove. Rewound, the iterator shows them, so they are emitted and their later eviction removes
 * the scanned copy. Calling {@code cleanUp()} after the scan instead would not do: it evicts at
 * most 1,000 entries per queue a pass, stops early on an access-order queue made stale by dropped
 * reads, and the variable-expiry timer wheel advances in ~1 s ticks, so an expired entry can
 * outlive it. Keys whose enter or leave is in flight are the guard's business (cuckoo-guard-core
 * hands them to the new filter), so nothing here waits for writes.
 *
 * <p>Only {@code hasNext}/{@code next} run rewound; {@code action} (the guard, and through it the
 * user's rebuild listeners) never sees the rewound clock.
 *
 * @param <K> the key type
 */
public final class CacheKeySource<K> implements KeySource<K> {

  private final ScanAwareTicker ticker;
  private volatile @Nullable Cache<K, ?> raw;

  /** A source for the cache built with {@code ticker}; {@link #attach} it once built. */
  public CacheKeySource(ScanAwareTicker ticker) {
    this.ticker = Objects.requireNonNull(ticker);
  }

  /** The cache to scan; before it is attached it holds no keys. */
  public void attach(Cache<K, ?> cache) {
    this.raw = Objects.requireNonNull(cache);
  }

  @Override
  public void forEachKey(Consumer<? super K> action) {
    Cache<K, ?> cache = raw;
    if (cache == null) {
      return;
    }
    Iterator<K> keys = cache.asMap().keySet().iterator();
    while (true) {
      @Nullable K key;
      ticker.rewind();
      try {
        key = keys.hasNext() ? keys.next() : null;
      } finally {
        ticker.restore();
      }
      if (key == null) {
        return;
      }
      action.accept(key);
    }
  }
}
