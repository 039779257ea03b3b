package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Policy;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The {@code policy()} of a guarded cache. Everything that reads, resizes or retimes goes to the
 * raw policy (shrinking the maximum evicts through the eviction listener; snapshots are read-only).
 * The only writes in {@link Policy} are those of {@link Policy.VarExpiration} ({@code put}, {@code
 * putIfAbsent}, {@code compute} with a duration): Caffeine's own, run as enters and guarded
 * computes by {@link GuardedWrites}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class GuardedPolicy<K, V> implements Policy<K, V> {

  private final Policy<K, V> raw;
  private final Optional<VarExpiration<K, V>> expireVariably;

  GuardedPolicy(Policy<K, V> raw, GuardedWrites<K, V> writes) {
    this.raw = raw;
    this.expireVariably = raw.expireVariably().map(v -> new GuardedVarExpiration<>(v, writes));
  }

  @Override
  public boolean isRecordingStats() {
    return raw.isRecordingStats();
  }

  @Override
  public @Nullable V getIfPresentQuietly(K key) {
    return raw.getIfPresentQuietly(key);
  }

  @Override
  public @Nullable CacheEntry<K, V> getEntryIfPresentQuietly(K key) {
    return raw.getEntryIfPresentQuietly(key);
  }

  @Override
  public Map<K, CompletableFuture<V>> refreshes() {
    return raw.refreshes();
  }

  @Override
  public Optional<Eviction<K, V>> eviction() {
    return raw.eviction();
  }

  @Override
  public Optional<FixedExpiration<K, V>> expireAfterAccess() {
    return raw.expireAfterAccess();
  }

  @Override
  public Optional<FixedExpiration<K, V>> expireAfterWrite() {
    return raw.expireAfterWrite();
  }

  @Override
  public Optional<VarExpiration<K, V>> expireVariably() {
    return expireVariably;
  }

  @Override
  public Optional<FixedRefresh<K, V>> refreshAfterWrite() {
    return raw.refreshAfterWrite();
  }

  /** Variable expiration whose writes enter keys like every other write of the cache. */
  private static final class GuardedVarExpiration<K, V> implements VarExpiration<K, V> {
    private final VarExpiration<K, V> raw;
    private final GuardedWrites<K, V> writes;
    private final GuardedWrites.PlainWrite<K, V> putIfAbsent;
    private final GuardedWrites.PlainWrite<K, V> put;

    GuardedVarExpiration(VarExpiration<K, V> raw, GuardedWrites<K, V> writes) {
      this.raw = raw;
      this.writes = writes;
      this.putIfAbsent = raw::putIfAbsent;
      this.put = raw::put;
    }

    @Override
    public OptionalLong getExpiresAfter(K key, TimeUnit unit) {
      return raw.getExpiresAfter(key, unit);
    }

    @Override
    public void setExpiresAfter(K key, long duration, TimeUnit unit) {
      raw.setExpiresAfter(key, duration, unit);
    }

    /** Inserts only if absent (Caffeine's), as an enter of the key. */
    @Override
    public @Nullable V putIfAbsent(K key, V value, long duration, TimeUnit unit) {
      requireNonNull(key, "key");
      requireNonNull(value, "value");
      requireNonNull(unit, "unit");
      return writes.enter(key, value, putIfAbsent, duration, unit);
    }

    /**
     * Caffeine's put with a duration, as an enter of the key (aborted if it replaced a live one).
     */
    @Override
    public @Nullable V put(K key, V value, long duration, TimeUnit unit) {
      requireNonNull(key, "key");
      requireNonNull(value, "value");
      requireNonNull(unit, "unit");
      return writes.enter(key, value, put, duration, unit);
    }

    @Override
    public @Nullable V compute(
        K key,
        BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> remappingFunction,
        Duration duration) {
      requireNonNull(duration, "duration");
      return writes.compute(key, remappingFunction, raw, duration);
    }

    @Override
    public Map<K, V> oldest(int limit) {
      return raw.oldest(limit);
    }

    @Override
    public <T extends @Nullable Object> T oldest(
        Function<Stream<CacheEntry<K, V>>, T> mappingFunction) {
      return raw.oldest(mappingFunction);
    }

    @Override
    public Map<K, V> youngest(int limit) {
      return raw.youngest(limit);
    }

    @Override
    public <T extends @Nullable Object> T youngest(
        Function<Stream<CacheEntry<K, V>>, T> mappingFunction) {
      return raw.youngest(mappingFunction);
    }
  }
}
