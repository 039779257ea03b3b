package io.github.cuckooguard.caffeine;

import static io.github.cuckooguard.caffeine.Mirror.assertExact;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.github.cuckooguard.Funnels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Every write path of the guarded Cache and its map view keeps exactly one fingerprint per key. */
class WritePathsTest {

  private final FakeTicker ticker = new FakeTicker();
  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
          .fpp(0.001)
          .seed(7)
          .ticker(ticker)
          .build();

  private Cache<Long, String> sizeBounded(long maximumSize) {
    return guard.wrap(Caffeine.newBuilder().maximumSize(maximumSize).executor(Runnable::run));
  }

  private static List<Long> keys(long from, long to) {
    return LongStream.range(from, to).boxed().collect(Collectors.toList());
  }

  @Test
  void replacingAKeyDoesNotAddFingerprints() {
    Cache<Long, String> cache = sizeBounded(1_000);
    for (int i = 0; i < 100; i++) {
      cache.put(1L, "v" + i);
    }
    assertThat(guard.stats().size()).isEqualTo(1);
    assertThat(guard.mightContain(1L)).isTrue();
    assertExact(cache, guard);
  }

  @Test
  void putAllInvalidateAndInvalidateAllPairEveryFingerprint() {
    Cache<Long, String> cache = sizeBounded(1_000);
    cache.putAll(keys(0, 100).stream().collect(Collectors.toMap(k -> k, k -> "v")));
    assertExact(cache, guard);
    cache.invalidate(3L);
    cache.invalidate(3L);
    cache.invalidate(12_345L);
    cache.invalidateAll(keys(10, 20));
    assertThat(cache.estimatedSize()).isEqualTo(89);
    assertExact(cache, guard);
    cache.invalidateAll();
    assertThat(guard.stats().size()).isZero();
    assertExact(cache, guard);
  }

  @Test
  void putOverAnExpiredEntryEntersTheKeyAgain() {
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(100)
                .executor(Runnable::run)
                .expireAfterWrite(Duration.ofMinutes(1)));
    cache.put(1L, "first");
    ticker.advance(Duration.ofMinutes(2));
    // Caffeine fires EXPIRED to the eviction listener (the key leaves), then the key is present
    // again.
    cache.put(1L, "second");
    assertThat(cache.getIfPresent(1L)).isEqualTo("second");
    assertThat(guard.mightContain(1L)).isTrue();
    assertExact(cache, guard);
  }

  @Test
  void expiryLeavesThroughTheEvictionListener() {
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(1_000)
                .executor(Runnable::run)
                .expireAfterWrite(Duration.ofMinutes(1)));
    keys(0, 50).forEach(k -> cache.put(k, "v"));
    ticker.advance(Duration.ofSeconds(30));
    keys(50, 80).forEach(k -> cache.put(k, "v"));
    ticker.advance(Duration.ofSeconds(45));
    cache.cleanUp();
    assertThat(cache.estimatedSize()).isEqualTo(30);
    assertExact(cache, guard);
  }

  @Test
  void expireAfterAccessKeepsReadEntriesAndDropsTheRest() {
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(1_000)
                .executor(Runnable::run)
                .expireAfterAccess(Duration.ofMinutes(1)));
    keys(0, 40).forEach(k -> cache.put(k, "v"));
    ticker.advance(Duration.ofSeconds(40));
    keys(0, 10).forEach(cache::getIfPresent);
    ticker.advance(Duration.ofSeconds(40));
    cache.cleanUp();
    assertThat(cache.asMap().keySet()).containsExactlyInAnyOrderElementsOf(keys(0, 10));
    assertExact(cache, guard);
  }

  @Test
  void sizeEvictionLeavesThroughTheEvictionListener() {
    Cache<Long, String> cache = sizeBounded(100);
    keys(0, 1_000).forEach(k -> cache.put(k, "v"));
    cache.cleanUp();
    assertThat(cache.estimatedSize()).isEqualTo(100);
    assertExact(cache, guard);
  }

  @Test
  void weightEvictionLeavesThroughTheEvictionListener() {
    CaffeineGuard<Long, String> weighted =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(1_000)
            .seed(7)
            .build();
    Cache<Long, String> cache =
        weighted.wrap(
            Caffeine.newBuilder()
                .executor(Runnable::run)
                .maximumWeight(500)
                .weigher((Long k, String v) -> v.length()));
    keys(0, 400).forEach(k -> cache.put(k, "x".repeat((int) (k % 7) + 1)));
    cache.cleanUp();
    assertThat(cache.policy().eviction().orElseThrow().weightedSize().orElseThrow())
        .isLessThanOrEqualTo(500);
    assertExact(cache, weighted);
  }

  @Test
  void anUnboundedCacheIsGuardedWithExpectedInsertions() {
    CaffeineGuard<Long, String> unbounded =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(1_000)
            .seed(7)
            .build();
    Cache<Long, String> cache = unbounded.wrap(Caffeine.newBuilder().recordStats());
    keys(0, 100).forEach(k -> cache.put(k, "v"));
    cache.asMap().putIfAbsent(5L, "ignored");
    cache.asMap().merge(200L, "m", String::concat);
    cache.invalidateAll(keys(0, 50));
    assertThat(cache.stats().loadCount()).isZero();
    assertExact(cache, unbounded);
    assertThat(unbounded.stats().size()).isEqualTo(51);
  }

  @Test
  void getWithAMappingFunctionEntersOnlyLoadedValues() {
    Cache<Long, String> cache = sizeBounded(100);
    assertThat(cache.get(1L, k -> "one")).isEqualTo("one");
    assertThat(cache.get(1L, k -> "ignored")).isEqualTo("one");
    assertThat(cache.get(2L, k -> null)).isNull();
    assertThat(guard.stats().size()).isEqualTo(1);
    assertExact(cache, guard);
  }

  @Test
  void getAllStoresEveryLoadedEntryThroughTheGuardIncludingExtraKeys() {
    Cache<Long, String> cache = sizeBounded(100);
    cache.put(1L, "present");
    Map<Long, String> result =
        cache.getAll(List.of(1L, 2L, 3L), missing -> Map.of(2L, "two", 3L, "three", 99L, "extra"));
    assertThat(result)
        .containsExactly(Map.entry(1L, "present"), Map.entry(2L, "two"), Map.entry(3L, "three"));
    assertThat(cache.asMap().keySet()).containsExactlyInAnyOrder(1L, 2L, 3L, 99L);
    assertExact(cache, guard);
  }

  @Test
  void mapComputeFamilyEntersAndLeavesWithTheEntry() {
    Cache<Long, String> cache = sizeBounded(100);
    ConcurrentMap<Long, String> map = cache.asMap();
    map.compute(1L, (k, v) -> "created");
    map.compute(1L, (k, v) -> v + "+replaced");
    String same = map.get(1L);
    map.compute(1L, (k, v) -> v);
    assertThat(map.get(1L)).isSameAs(same);
    map.compute(2L, (k, v) -> null);
    assertExact(cache, guard);
    assertThat(guard.stats().size()).isEqualTo(1);

    map.compute(1L, (k, v) -> null);
    map.computeIfAbsent(3L, k -> "absent");
    map.computeIfAbsent(3L, k -> "not called");
    map.computeIfAbsent(4L, k -> null);
    map.computeIfPresent(3L, (k, v) -> v + "!");
    map.computeIfPresent(5L, (k, v) -> "never");
    assertExact(cache, guard);
    assertThat(map.keySet()).containsExactly(3L);

    map.computeIfPresent(3L, (k, v) -> null);
    map.merge(6L, "a", String::concat);
    map.merge(6L, "b", String::concat);
    map.merge(7L, "c", String::concat);
    map.merge(7L, "d", (a, b) -> null);
    assertThat(map).containsExactly(Map.entry(6L, "ab"));
    assertExact(cache, guard);
  }

  @Test
  void mapPutReplaceAndConditionalRemovePairFingerprints() {
    Cache<Long, String> cache = sizeBounded(100);
    ConcurrentMap<Long, String> map = cache.asMap();
    assertThat(map.put(1L, "a")).isNull();
    assertThat(map.put(1L, "b")).isEqualTo("a");
    assertThat(map.putIfAbsent(1L, "c")).isEqualTo("b");
    assertThat(map.putIfAbsent(2L, "c")).isNull();
    assertThat(map.replace(3L, "never")).isNull();
    assertThat(map.replace(3L, "x", "never")).isFalse();
    assertThat(map.replace(2L, "d")).isEqualTo("c");
    assertThat(map.replace(2L, "d", "e")).isTrue();
    assertThat(map.containsKey(3L)).isFalse();
    assertExact(cache, guard);

    assertThat(map.remove(2L, "wrong")).isFalse();
    assertExact(cache, guard);
    assertThat(map.remove(2L, "e")).isTrue();
    assertThat(map.remove(1L)).isEqualTo("b");
    assertThat(map.remove(1L)).isNull();
    assertThat(guard.stats().size()).isZero();
    assertExact(cache, guard);

    map.putAll(Map.of(10L, "a", 11L, "b"));
    map.replaceAll((k, v) -> v.toUpperCase());
    assertThat(map).containsOnly(Map.entry(10L, "A"), Map.entry(11L, "B"));
    map.clear();
    assertThat(guard.stats().size()).isZero();
    assertExact(cache, guard);
  }

  @Test
  void viewRemovalsAndIteratorRemovalsLeave() {
    Cache<Long, String> cache = sizeBounded(1_000);
    ConcurrentMap<Long, String> map = cache.asMap();
    keys(0, 100).forEach(k -> cache.put(k, k % 2 == 0 ? "even" : "odd"));

    assertThat(map.keySet().remove(0L)).isTrue();
    assertThat(map.keySet().remove(0L)).isFalse();
    map.keySet().removeIf(k -> k < 10);
    map.values().removeIf("odd"::equals);
    assertThat(map.entrySet().remove(Map.entry(20L, "even"))).isTrue();
    assertThat(map.entrySet().remove(Map.entry(22L, "odd"))).isFalse();
    for (Iterator<Long> it = map.keySet().iterator(); it.hasNext(); ) {
      if (it.next() % 4 == 0) {
        it.remove();
      }
    }
    assertExact(cache, guard);
    map.keySet().retainAll(Set.of(30L, 34L, 38L, 42L));
    map.keySet().removeAll(List.of(38L));
    assertThat(map.keySet()).containsExactlyInAnyOrder(30L, 34L, 42L);
    assertExact(cache, guard);
    map.values().clear();
    assertThat(guard.stats().size()).isZero();
    assertExact(cache, guard);
  }

  @Test
  void entrySetValueWritesThroughTheGuardEvenAfterTheKeyWasRemoved() {
    Cache<Long, String> cache = sizeBounded(100);
    cache.put(1L, "a");
    cache.put(2L, "b");
    List<Map.Entry<Long, String>> entries = new ArrayList<>(cache.asMap().entrySet());
    cache.invalidateAll();
    for (Map.Entry<Long, String> entry : entries) {
      assertThat(entry.setValue(entry.getValue() + "2"))
          .isEqualTo(entry.getValue().substring(0, 1));
    }
    assertThat(cache.asMap()).containsOnly(Map.entry(1L, "a2"), Map.entry(2L, "b2"));
    assertExact(cache, guard);
  }

  @Test
  void variableExpirationWritesEnterAndTheirExpiryLeaves() {
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(100)
                .executor(Runnable::run)
                .expireAfter(Expiry.writing((Long k, String v) -> Duration.ofMinutes(10))));
    Policy.VarExpiration<Long, String> varExpiration =
        cache.policy().expireVariably().orElseThrow();
    assertThat(varExpiration.put(1L, "a", Duration.ofMinutes(1))).isNull();
    assertThat(varExpiration.put(1L, "b", Duration.ofMinutes(1))).isEqualTo("a");
    assertThat(varExpiration.putIfAbsent(1L, "c", Duration.ofMinutes(1))).isEqualTo("b");
    assertThat(varExpiration.putIfAbsent(2L, "c", Duration.ofMinutes(1))).isNull();
    varExpiration.compute(3L, (k, v) -> "d", Duration.ofMinutes(1));
    varExpiration.compute(4L, (k, v) -> null, Duration.ofMinutes(1));
    cache.put(5L, "long-lived");
    assertThat(guard.stats().size()).isEqualTo(4);
    assertExact(cache, guard);
    varExpiration.compute(3L, (k, v) -> null, Duration.ofMinutes(1));
    ticker.advance(Duration.ofMinutes(5));
    assertThat(cache.asMap().keySet()).containsExactly(5L);
    assertExact(cache, guard);
  }

  @Test
  void theUsersEvictionAndRemovalListenersKeepWorking() {
    List<String> evictions = Collections.synchronizedList(new ArrayList<>());
    List<String> removals = Collections.synchronizedList(new ArrayList<>());
    CaffeineGuard<Long, String> listening =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .seed(7)
            .evictionListener(
                (Long k, String v, RemovalCause c) -> {
                  evictions.add(k + ":" + c);
                  if (evictions.size() == 1) {
                    throw new IllegalStateException(
                        "a throwing user listener must not affect the guard (expected in the log)");
                  }
                })
            .build();
    Cache<Long, String> cache =
        listening.wrap(
            Caffeine.newBuilder()
                .maximumSize(10)
                .executor(Runnable::run)
                .removalListener((Long k, String v, RemovalCause c) -> removals.add(k + ":" + c)));
    keys(0, 30).forEach(k -> cache.put(k, "v"));
    cache.cleanUp();
    cache.invalidate(cache.asMap().keySet().iterator().next());
    assertThat(evictions).hasSize(20).allMatch(e -> e.endsWith(":SIZE"));
    assertThat(removals).hasSize(21).filteredOn(r -> r.endsWith(":EXPLICIT")).hasSize(1);
    assertExact(cache, listening);
  }
}
