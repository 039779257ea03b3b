package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.github.cuckooguard.CuckooGuard;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
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
 * <p>Lookups never ask the guard, not even a sample of their misses: a guarded {@code getIfPresent}
 * is Caffeine's plus one call. The guard's observed fpp is fed from the write side instead ({@link
 * GuardedWrites#put}).
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
  private final ConcurrentMap<K, V> rawMap;
  final GuardedWrites<K, V> writes;
  final CuckooGuard<K> guard;
  private final GuardedMap<K, V> asMap;
  private final GuardedPolicy<K, V> policy;
  private final boolean recordingStats;

  /** Misses Caffeine did not count: the keys a failed sequential getAll did not get to. */
  private final LongAdder unseenMisses = new LongAdder();

  public GuardedCache(Cache<K, V> raw, GuardedWrites<K, V> writes) {
    this.raw = raw;
    this.rawMap = raw.asMap();
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
   * Caffeine's own {@code getIfPresent}. Without statistics, through the cache's map view: Caffeine
   * runs the same lookup for both ({@code getIfPresent(key, recordStats)}), and the map view is the
   * cache itself, one reference closer than the {@code Cache} facade (on a hot miss of ~10 ns, the
   * extra dependent load measured 10–30 %).
   */
  @Override
  public @Nullable V getIfPresent(K key) {
    requireNonNull(key, "key");
    return recordingStats ? raw.getIfPresent(key) : rawMap.get(key);
  }

  @Override
  @SuppressWarnings(
      "NullAway") // Caffeine declares @PolyNull here (null in, null out); NullAway reads it as
  // non-null
  public @Nullable V get(K key, Function<? super K, ? extends @Nullable V> mappingFunction) {
    return writes.computeIfAbsent(key, mappingFunction);
  }

  /** Caffeine's own {@code getAllPresent}. */
  @Override
  public Map<K, V> getAllPresent(Iterable<? extends K> keys) {
    return raw.getAllPresent(keys);
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
