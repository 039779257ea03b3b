package io.github.cuckooguard.caffeine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.cuckooguard.KeySource;
import java.util.Iterator;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The rebuild source of a guarded cache: every key in the raw cache's map.
 *
 * <p>It meets the {@link KeySource} contract more strictly than "iterate, then {@code cleanUp()}":
 * <ol>
 *   <li>It first waits for writes already in flight ({@link InFlightWrites}), so every key whose
 *       {@code keyEntered} preceded the rebuild is published before the iteration starts.
 *   <li>It iterates with the clock rewound ({@link ScanAwareTicker}), so expired entries that are
 *       not evicted yet are emitted too. Their later eviction is then paired with the scanned copy.
 *       {@code cleanUp()} after iterating would not be enough: it evicts at most 1,000 entries a
 *       pass per queue, can stop early on an out-of-order access queue, and the variable-expiry
 *       timer wheel advances in ~1 s ticks, so an expired entry can outlive it. Nor is it called:
 *       an eviction during the rebuild of an entry the scan emitted only leaks a copy.
 *   <li>An entry removed during the call is either emitted or had its {@code keyLeft} delivered
 *       inside its removal, which is what the contract asks.
 * </ol>
 *
 * @param <K> the key type
 */
public final class CacheKeySource<K> implements KeySource<K> {

  private final Cache<K, ?> raw;
  private final ScanAwareTicker ticker;
  private final InFlightWrites inFlight;

  public CacheKeySource(Cache<K, ?> raw, ScanAwareTicker ticker, InFlightWrites inFlight) {
    this.raw = Objects.requireNonNull(raw);
    this.ticker = Objects.requireNonNull(ticker);
    this.inFlight = Objects.requireNonNull(inFlight);
  }

  @Override
  public void forEachKey(Consumer<? super K> action) throws InterruptedException {
    inFlight.awaitEarlierWrites();
    try (ScanAwareTicker.Scan scan = ticker.startScan()) {
      Iterator<K> keys = raw.asMap().keySet().iterator();
      while (true) {
        K key = scan.step(() -> keys.hasNext() ? keys.next() : null);
        if (key == null) {
          return;
        }
        action.accept(key);
      }
    }
  }
}
