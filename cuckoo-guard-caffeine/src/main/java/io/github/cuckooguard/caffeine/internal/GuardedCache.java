package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.github.cuckooguard.CuckooGuard;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A Caffeine {@link Cache} whose writes keep a {@link CuckooGuard} exactly in step with its keys
 * ({@link GuardedWrites}).
 *
 * <p>Reads ({@link #getIfPresent}, {@link #getAllPresent}, the map view), {@link #estimatedSize},
 * {@link #cleanUp} go straight to the raw cache: Caffeine's answer is exact, and its miss (one hash
 * map probe) costs less than the filter lookup that could skip it. The guard is for callers that
 * route around the cache ({@code CaffeineGuard.mightContain}). Loads ({@link #get}, {@link
 * #getAll}) run inside Caffeine's computes.
 *
 * <p>Observed fpp: one in {@value #FPP_SAMPLE_EVERY} misses of {@code getIfPresent} and {@code
 * getAllPresent}, drawn at random per miss from the calling thread's {@link ThreadLocalRandom} (no
 * allocation, no write to memory another thread writes), asks the guard about the missed key, and a
 * "might contain" for it is reported as a false positive. So {@code CaffeineGuard.stats()} counts
 * those sampled lookups (not every read of the cache) and keeps an estimate of the filter's
 * false-positive rate over keys users actually ask for, which feeds the drift trigger of rebuilds.
 *
 * <p>Statistics: {@link #stats} is the raw cache's, plus the keys a failed sequential {@code
 * getAll} did not get to (Caffeine counts those as misses, see {@link GuardedLoadingCache}); a
 * {@code StatsCounter} given to {@code recordStats} sees every lookup, as without the guard.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class GuardedCache<K, V> implements Cache<K, V> {

  final Cache<K, V> raw;
  final GuardedWrites<K, V> writes;
  final CuckooGuard<K> guard;
  private final GuardedMap<K, V> asMap;
  private final GuardedPolicy<K, V> policy;
  private final boolean recordingStats;

  /** Misses Caffeine did not count: the keys a failed sequential getAll did not get to. */
  private final LongAdder unseenMisses = new LongAdder();

  /**
   * On average one in this many lookup misses asks the guard about the key (a power of two).
   * Measured against plain Caffeine's miss (benchmarks README, Caffeine section): one in 64 made a
   * guarded miss 1.2–1.5× plain's, one in 128 1.03–1.17×, no sample 0.99–1.08×. At 128, the drift
   * trigger's {@value io.github.cuckooguard.CuckooGuard#MIN_NEGATIVES_FOR_DRIFT} sampled negatives
   * take about 1.3 million misses.
   */
  public static final int FPP_SAMPLE_EVERY = 128;

  public GuardedCache(Cache<K, V> raw, GuardedWrites<K, V> writes) {
    this.raw = raw;
    this.writes = writes;
    this.guard = writes.guard();
    this.asMap = new GuardedMap<>(raw.asMap(), writes);
    this.policy = new GuardedPolicy<>(raw.policy(), writes);
    this.recordingStats = raw.policy().isRecordingStats();
  }

  /** Counts {@code n} misses that Caffeine's statistics did not see. */
  final void missed(long n) {
    if (recordingStats && n > 0) {
      unseenMisses.add(n);
    }
  }

  /**
   * Caffeine's own {@code getIfPresent}; on one in {@value #FPP_SAMPLE_EVERY} misses the guard is
   * asked about the key too, and a "might contain" is reported as a false positive.
   */
  @Override
  public @Nullable V getIfPresent(K key) {
    V value = raw.getIfPresent(requireNonNull(key, "key"));
    if (value == null) {
      sampleMiss(key);
    }
    return value;
  }

  /**
   * Counts a miss of {@code key} at the cache: with probability 1/{@value #FPP_SAMPLE_EVERY}, feeds
   * the guard's observed fpp with it. The draw is the calling thread's own random stream (its state
   * lives in the Thread object), so misses on several cores share no written cache line, and,
   * unlike a counter, a draw cannot alias with a caller that alternates between caches. A key
   * written by another thread since the miss can be reported as a false positive: that only skews
   * the estimate, as any race between a lookup and a write does.
   */
  private void sampleMiss(K key) {
    if ((ThreadLocalRandom.current().nextInt() & (FPP_SAMPLE_EVERY - 1)) == 0
        && guard.mightContain(key)) {
      guard.reportFalsePositive(key);
    }
  }

  @Override
  @SuppressWarnings(
      "NullAway") // Caffeine declares @PolyNull here (null in, null out); NullAway reads it as
  // non-null
  public @Nullable V get(K key, Function<? super K, ? extends @Nullable V> mappingFunction) {
    return writes.computeIfAbsent(key, mappingFunction);
  }

  /**
   * Caffeine's own {@code getAllPresent}; each key it did not return counts as a miss for the
   * sample of {@link #getIfPresent}.
   */
  @Override
  public Map<K, V> getAllPresent(Iterable<? extends K> keys) {
    Map<K, V> present = raw.getAllPresent(keys);
    for (K key : keys) {
      if (!present.containsKey(key)) {
        sampleMiss(key);
      }
    }
    return present;
  }

  /**
   * Caffeine's own {@code getAll}: present entries, plus one call of {@code mappingFunction} for
   * the missing keys, whose results Caffeine stores with plain puts (extra keys too). Each returned
   * entry's enter begins when the function returns, before those puts, and is made visible when
   * {@code getAll} returns. An entry that replaced a live one keeps the extra fingerprint (a false
   * positive until the next rebuild): which puts replaced, Caffeine does not say.
   */
  @Override
  public Map<K, V> getAll(
      Iterable<? extends K> keys,
      Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> mappingFunction) {
    requireNonNull(mappingFunction, "mappingFunction");
    BulkLoad<K, V> load = new BulkLoad<>(guard, mappingFunction);
    try {
      return raw.getAll(keys, load);
    } finally {
      load.end();
    }
  }

  @Override
  public void put(K key, V value) {
    writes.put(key, value);
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    map.forEach((key, value) -> writes.put(key, value));
  }

  @Override
  public void invalidate(K key) {
    writes.remove(key);
  }

  @Override
  public void invalidateAll(Iterable<? extends K> keys) {
    for (K key : keys) {
      writes.remove(key);
    }
  }

  @Override
  public void invalidateAll() {
    writes.clear();
  }

  @Override
  public long estimatedSize() {
    return raw.estimatedSize();
  }

  @Override
  public CacheStats stats() {
    CacheStats stats = raw.stats();
    long unseen = unseenMisses.sum();
    return unseen == 0 ? stats : stats.plus(CacheStats.of(0, unseen, 0, 0, 0, 0, 0));
  }

  @Override
  public ConcurrentMap<K, V> asMap() {
    return asMap;
  }

  @Override
  public void cleanUp() {
    raw.cleanUp();
  }

  @Override
  public Policy<K, V> policy() {
    return policy;
  }

  @Override
  public String toString() {
    return "GuardedCache[" + guard.name() + ", " + raw + "]";
  }
}
