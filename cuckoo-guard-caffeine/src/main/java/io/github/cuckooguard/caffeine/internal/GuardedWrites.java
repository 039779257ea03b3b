package io.github.cuckooguard.caffeine.internal;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Policy;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.PendingEnter;
import io.github.cuckooguard.PendingLeave;
import java.time.Duration;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Every write of a guarded cache: the adapter's half of cuckoo-guard-core's write protocol ({@link
 * CuckooGuard}), run where Caffeine orders it with every other write of the key.
 *
 * <pre>
 * Where each event happens (every one through a handle; the adapter never calls keyLeft).
 *   enter, user function  beginEnter(k) inside Caffeine's per-key compute, once the function
 *                         returned a value for an absent key (GuardedCompute); visible() after
 *                         the compute returned the value (the entry is published), abort() if it
 *                         returned null or threw (nothing was stored).
 *   enter, plain write    beginEnter(k) before Caffeine's putIfAbsent (or VarExpiration put /
 *                         putIfAbsent) is issued; visible() if it returned null (it created the
 *                         entry, possibly over an expired one that Caffeine first evicted through
 *                         the eviction listener inside the same atomic operation), abort() if it
 *                         returned a live value (a duplicate enter of a key that stays visible
 *                         with its own fingerprint) or threw before publishing. put of a key
 *                         that a quiet read finds live tries replace() first, which never
 *                         creates an entry, so replacing a live key touches no filter at all.
 *   leave, user function  beginLeave(k).gone() inside the compute that removes the entry (the
 *                         function saw a live value and returned null): inside the atomic removal.
 *   leave, plain removal  beginLeave(k) before Caffeine's remove is issued; gone() if it removed
 *                         a live entry (it returns the value only for an explicit removal),
 *                         cancel() otherwise (absent, or expired: then Caffeine evicted it
 *                         through the eviction listener inside the removal, which left it).
 *                         gone() may come after another writer put the key back; the rebuild
 *                         then keeps the key's scan copies (cuckoo-guard-core RebuildState, (3)).
 *   leave, eviction       beginLeave(k).gone() in the eviction listener (GuardEvictionListener),
 *                         which Caffeine calls inside the atomic removal for size, weight, expiry.
 *   replace               nothing: a live key stays one key (replace(), replaceAll(), a compute
 *                         or merge that returns a new value for a live key, refreshes).
 *
 * Why no present key can be reported absent. A key k becomes present only when a Caffeine
 * operation creates its entry, and every creating operation of the guarded cache is one of the
 * two enters above: its fingerprint is added (beginEnter) before the entry can be seen, and the
 * key stays in flight in the guard until visible(), which runs after the entry is published, so
 * a rebuild installed meanwhile holds a copy for it itself (cuckoo-guard-core RebuildState). An enter
 * is aborted only when Caffeine stored nothing for it, or when the key was live with its own
 * fingerprint (the duplicate enter's copy goes, the live incarnation's stays). k's fingerprint
 * is removed once per incarnation, by exactly one leave: the one inside the compute or eviction
 * that ends it, or the gone() of a plain removal that Caffeine says removed it explicitly
 * (Caffeine's remove either calls the eviction listener or returns the value, never both). Each
 * leave begins before the removal can be seen, and ends inside the atomic removal or after the
 * key is gone. Leaves use handles rather than keyLeft because a plain write's enter can be in
 * flight while an older incarnation of the same key leaves (a put over an expired entry evicts it
 * inside the put; an eviction can race a putIfAbsent that then creates the key): during a rebuild
 * keyLeft releases any copy the rebuild holds for the key, which may be that enter's, and the
 * rebuilt filter would then lack the new entry (RebuildTest pins it); a leave begun and ended
 * with a handle releases only what its own begin held.
 * What remains is the key source's part: CacheKeySource emits every key the map holds, also
 * expired ones that are not evicted yet (hidden from Caffeine's iterator), so no eviction after
 * a swap lacks its copy.
 * </pre>
 *
 * <p>Statistics. Plain writes go to Caffeine's plain operations, so {@code recordStats()} counts
 * what plain Caffeine counts (no stand-in computes counted as loads); user functions run in the
 * same Caffeine computes as unguarded, counted as Caffeine counts them.
 *
 * <p>Thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GuardedWrites<K, V> {

  private final ConcurrentMap<K, V> map;
  private final Policy<K, V> policy;
  private final CuckooGuard<K> guard;
  private final ThreadLocal<GuardedCompute<K, V>> computes;
  private final PlainWrite<K, V> putIfAbsent;

  public GuardedWrites(Cache<K, V> raw, CuckooGuard<K> guard) {
    this.map = raw.asMap();
    this.policy = raw.policy();
    this.guard = guard;
    this.computes = ThreadLocal.withInitial(() -> new GuardedCompute<>(guard));
    this.putIfAbsent = (key, value, duration, unit) -> map.putIfAbsent(key, value);
  }

  public CuckooGuard<K> guard() {
    return guard;
  }

  /** This thread's compute function, or a fresh one inside another compute; release it after. */
  private GuardedCompute<K, V> compute() {
    return computes.get().acquire();
  }

  /**
   * A plain Caffeine write that creates the entry if it returns null: {@code putIfAbsent}, or a
   * {@code VarExpiration} put / putIfAbsent given the entry's duration. One instance per cache,
   * made once: the per-call arguments are parameters, so no write captures a lambda per call.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  @FunctionalInterface
  interface PlainWrite<K, V> {
    /** Caffeine's write; the live value it found, or null if it created the entry. */
    @Nullable V apply(K key, V value, long duration, TimeUnit unit);
  }

  /**
   * A plain Caffeine write that creates the entry if it returns null (putIfAbsent, and the
   * variable-expiry put / putIfAbsent with {@code duration} in {@code unit}), run as an enter of
   * {@code key}.
   *
   * @return what {@code write} returned: the live value it found, or null if it created the entry
   */
  @Nullable V enter(K key, V value, PlainWrite<K, V> write, long duration, TimeUnit unit) {
    PendingEnter<K> enter = guard.beginEnter(key);
    V previous;
    try {
      previous = write.apply(key, value, duration, unit);
    } catch (RuntimeException e) {
      enter.abort(); // Caffeine throws only before publishing (weigher, expiry)
      throw e;
    } catch (Error e) {
      enter.visible(); // outcome unknown: keep the fingerprint (at worst a false positive)
      throw e;
    }
    if (previous == null) {
      enter.visible();
    } else {
      enter.abort();
    }
    return previous;
  }

  private @Nullable V enter(K key, V value) {
    return enter(key, value, putIfAbsent, 0L, TimeUnit.NANOSECONDS);
  }

  /**
   * {@code Map.put}: the previous live value, or null if the key was absent (or expired). A live
   * key is replaced without touching the filter; else the value is inserted as an enter, and if
   * another writer created the key in between, replaced again.
   *
   * <p>Which comes first is only a guess, from a quiet read of the key ({@code containsKey}, which
   * Caffeine answers as {@code policy().getIfPresentQuietly} does: live and not expired, no
   * statistics, no change of access order or expiry; through the cache itself, one hop shorter than
   * the policy): a key that is live now is probably still live, so replace() first; a key that is
   * not is probably new, so the enter first, which saves the replace() Caffeine would run (and
   * allocate its context for) to find nothing. The guess never decides what the filter does:
   * replace() never creates an entry, and the enter's putIfAbsent aborts it if the key is live by
   * then, so either order is exact.
   */
  public @Nullable V put(K key, V value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    if (map.containsKey(key)) {
      V replaced = map.replace(key, value);
      if (replaced != null) {
        return replaced;
      }
    } else {
      sampleAbsent(key);
    }
    return putEntering(key, value);
  }

  /**
   * On average one in this many puts of a key that a quiet read found absent first asks the guard
   * about it (a power of two). At 8, the drift trigger's {@value
   * io.github.cuckooguard.CuckooGuard#MIN_NEGATIVES_FOR_DRIFT} sampled negatives take about 80,000
   * new keys; a sampled put costs one filter lookup more, a new key's put costs a filter insert
   * anyway.
   */
  public static final int FPP_SAMPLE_EVERY = 8;

  /**
   * Feeds the guard's observed fpp with a key the cache does not hold: with probability 1/{@value
   * #FPP_SAMPLE_EVERY}, asks the guard about it and reports a "might contain" as a false positive.
   * Such a key is as good a probe of the filter as a lookup miss (a false positive depends only on
   * the key's hash and the filter's contents), and sampling here keeps lookups free of any guard
   * work. The draw is the thread's own ThreadLocalRandom: no write to memory another thread writes.
   * Read-only for the filter (mightContain), so it cannot make a key absent. A key written by
   * another thread since the quiet read, or an expired entry not evicted yet (still tracked), can
   * be reported as a false positive: that only skews the estimate upwards.
   */
  private void sampleAbsent(K key) {
    if ((ThreadLocalRandom.current().nextInt() & (FPP_SAMPLE_EVERY - 1)) == 0
        && guard.mightContain(key)) {
      guard.reportFalsePositive(key);
    }
  }

  /**
   * The rest of {@link #put} once no live value was replaced: the enter, and if another writer
   * created the key in between, a replace again. Out of line so that the replace path above stays
   * small enough to inline into the caller.
   */
  private @Nullable V putEntering(K key, V value) {
    while (true) {
      if (enter(key, value) == null) {
        return null;
      }
      V replaced = map.replace(key, value);
      if (replaced != null) {
        return replaced;
      }
    }
  }

  /** {@code Map.putIfAbsent}: the present value, or null if {@code value} was inserted. */
  public @Nullable V putIfAbsent(K key, V value) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    return enter(key, value);
  }

  /**
   * {@code Cache.get(k, fn)}, {@code LoadingCache.get} and {@code Map.computeIfAbsent} (the same
   * Caffeine call, counted alike): enters the key if {@code function} creates the entry.
   */
  public @Nullable V computeIfAbsent(K key, Function<? super K, ? extends @Nullable V> function) {
    requireNonNull(key, "key");
    requireNonNull(function, "mappingFunction");
    GuardedCompute<K, V> c = compute().loading(function);
    try {
      return c.published(map.computeIfAbsent(key, c.mapping));
    } catch (RuntimeException | Error e) {
      c.failed(e);
      throw e;
    } finally {
      c.release();
    }
  }

  /** {@code Map.compute} with the user's function; enters or leaves the key as the entry does. */
  public @Nullable V compute(
      K key, BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> function) {
    requireNonNull(key, "key");
    requireNonNull(function, "remappingFunction");
    GuardedCompute<K, V> c = compute().remapping(function);
    try {
      return c.published(map.compute(key, c.remapping));
    } catch (RuntimeException | Error e) {
      c.failed(e);
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * {@code VarExpiration.compute}: as {@link #compute}, giving a written entry {@code duration}.
   */
  public @Nullable V compute(
      K key,
      BiFunction<? super K, ? super @Nullable V, ? extends @Nullable V> function,
      Policy.VarExpiration<K, V> expiration,
      Duration duration) {
    requireNonNull(key, "key");
    requireNonNull(function, "remappingFunction");
    GuardedCompute<K, V> c = compute().remapping(function);
    try {
      return c.published(expiration.compute(key, c.remapping, duration));
    } catch (RuntimeException | Error e) {
      c.failed(e);
      throw e;
    } finally {
      c.release();
    }
  }

  /** {@code Map.computeIfPresent}; leaves the key if the function removes the entry. */
  public @Nullable V computeIfPresent(
      K key, BiFunction<? super K, ? super V, ? extends @Nullable V> function) {
    requireNonNull(key, "key");
    requireNonNull(function, "remappingFunction");
    GuardedCompute<K, V> c = compute().remapping(function);
    try {
      return c.published(map.computeIfPresent(key, c.remapping));
    } catch (RuntimeException | Error e) {
      c.failed(e);
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * {@code Map.merge} as Caffeine's: inserts {@code value} into an absent key (a plain putIfAbsent,
   * no load counted), else remaps the live value inside {@code computeIfPresent} (counted as a
   * load, as Caffeine's merge counts it); retries if the key appears or vanishes in between, as
   * {@code ConcurrentMap.merge} does.
   */
  public @Nullable V merge(
      K key, V value, BiFunction<? super V, ? super V, ? extends @Nullable V> function) {
    requireNonNull(key, "key");
    requireNonNull(value, "value");
    requireNonNull(function, "remappingFunction");
    GuardedCompute<K, V> c = compute().merging(function, value);
    try {
      while (true) {
        V merged = c.published(map.computeIfPresent(key, c.remapping));
        if (c.ran()) {
          return merged;
        }
        if (enter(key, value) == null) {
          return value;
        }
      }
    } catch (RuntimeException | Error e) {
      c.failed(e);
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * {@code Map.remove(key)}: removes a live entry and leaves its key; the removed value or null.
   */
  public @Nullable V remove(Object key) {
    requireNonNull(key, "key");
    @SuppressWarnings("unchecked")
    K k = (K) key;
    if (policy.getIfPresentQuietly(k) == null) {
      return null; // absent or expired (an expired entry leaves when Caffeine evicts it)
    }
    try (PendingLeave<K> leave = guard.beginLeave(k)) {
      V removed = map.remove(k);
      if (removed != null) {
        leave.gone();
      }
      return removed;
    }
  }

  /** {@code Map.remove(key, value)}: removes the entry only if it holds {@code value}. */
  public boolean remove(Object key, @Nullable Object value) {
    requireNonNull(key, "key");
    if (value == null) {
      return false;
    }
    @SuppressWarnings("unchecked")
    K k = (K) key;
    V current = policy.getIfPresentQuietly(k);
    if (current == null || !value.equals(current)) {
      return false;
    }
    try (PendingLeave<K> leave = guard.beginLeave(k)) {
      boolean removed = map.remove(k, value);
      if (removed) {
        leave.gone();
      }
      return removed;
    }
  }

  /** {@code Map.replace(key, value)}: never creates an entry, so it goes straight to Caffeine. */
  public @Nullable V replace(K key, V value) {
    return map.replace(key, value);
  }

  /** {@code Map.replace(key, oldValue, newValue)}: never creates an entry. */
  public boolean replace(K key, V oldValue, V newValue) {
    return map.replace(key, oldValue, newValue);
  }

  /**
   * {@code Map.replaceAll}: straight to Caffeine, which neither creates nor removes a live entry
   * there (a null from the function throws; expired entries are evicted through the listener).
   */
  public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
    map.replaceAll(function);
  }

  /**
   * Removes every entry, one key at a time through {@link #remove(Object)}; never "reset the filter
   * and clear", which would lose keys written in between.
   */
  public void clear() {
    for (K key : map.keySet()) {
      remove(key);
    }
  }
}
