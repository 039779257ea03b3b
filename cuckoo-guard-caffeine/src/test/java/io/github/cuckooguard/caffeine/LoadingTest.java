package io.github.cuckooguard.caffeine;

import static io.github.cuckooguard.caffeine.Mirror.assertExact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.github.cuckooguard.Funnels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Loads enter keys inside Caffeine's per-key compute; reloads and refreshes never enter. */
class LoadingTest {

  private final FakeTicker ticker = new FakeTicker();
  private final CaffeineGuard<Long, String> guard =
      CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
          .fpp(0.001)
          .seed(11)
          .ticker(ticker)
          .build();
  private final AtomicInteger loads = new AtomicInteger();

  /** Loads "v&lt;key&gt;#&lt;n&gt;" for even keys, nothing for odd ones. */
  private final CacheLoader<Long, String> evenKeys =
      key -> {
        int n = loads.incrementAndGet();
        return key % 2 == 0 ? "v" + key + "#" + n : null;
      };

  private LoadingCache<Long, String> cache(CacheLoader<Long, String> loader) {
    return guard.wrap(Caffeine.newBuilder().maximumSize(1_000).executor(Runnable::run), loader);
  }

  @Test
  void loadsEnterOnlyKeysThatLoadedAValue() {
    LoadingCache<Long, String> cache = cache(evenKeys);
    assertThat(cache.get(2L)).startsWith("v2#");
    assertThat(cache.get(2L)).isEqualTo(cache.get(2L));
    assertThat(cache.get(3L)).isNull();
    assertThat(loads).hasValue(2);
    assertThat(guard.stats().size()).isEqualTo(1);
    assertExact(cache, guard);
  }

  @Test
  void getNeverShortCircuitsSinceTheLoaderMayFindTheKey() {
    LoadingCache<Long, String> cache = cache(evenKeys);
    assertThat(guard.mightContain(4L)).isFalse();
    assertThat(cache.get(4L)).startsWith("v4#");
    assertThat(guard.mightContain(4L)).isTrue();
  }

  @Test
  void aThrowingLoaderEntersNothing() {
    LoadingCache<Long, String> cache =
        cache(
            key -> {
              throw new IllegalStateException("source down");
            });
    assertThatThrownBy(() -> cache.get(1L)).hasMessage("source down");
    assertThat(guard.stats().size()).isZero();
    assertExact(cache, guard);
  }

  @Test
  void getAllWithoutABulkLoaderLoadsKeyByKey() {
    LoadingCache<Long, String> cache = cache(evenKeys);
    Map<Long, String> all = cache.getAll(List.of(1L, 2L, 3L, 4L));
    assertThat(all.keySet()).containsExactly(2L, 4L);
    assertExact(cache, guard);
  }

  @Test
  void getAllWithABulkLoaderStoresEveryReturnedEntryThroughTheGuard() {
    List<Set<? extends Long>> bulkCalls = new ArrayList<>();
    CacheLoader<Long, String> bulk =
        new CacheLoader<>() {
          @Override
          public String load(Long key) {
            return "single" + key;
          }

          @Override
          public Map<Long, String> loadAll(Set<? extends Long> keys) {
            bulkCalls.add(Set.copyOf(keys));
            Map<Long, String> loaded = new HashMap<>();
            keys.forEach(k -> loaded.put(k, "bulk" + k));
            loaded.put(1_000L, "extra");
            return loaded;
          }
        };
    LoadingCache<Long, String> cache = cache(bulk);
    cache.get(1L);
    Map<Long, String> all = cache.getAll(List.of(1L, 2L, 3L));
    assertThat(all)
        .containsExactly(Map.entry(1L, "single1"), Map.entry(2L, "bulk2"), Map.entry(3L, "bulk3"));
    assertThat(bulkCalls).containsExactly(Set.of(2L, 3L));
    assertThat(cache.asMap().keySet()).containsExactlyInAnyOrder(1L, 2L, 3L, 1_000L);
    assertExact(cache, guard);
  }

  @Test
  void refreshOfAPresentKeyReplacesWithoutEntering() {
    LoadingCache<Long, String> cache = cache(evenKeys);
    String first = cache.get(2L);
    for (int i = 0; i < 20; i++) {
      cache.refresh(2L).join();
    }
    assertThat(cache.getIfPresent(2L)).isNotEqualTo(first);
    assertThat(guard.stats().size()).isEqualTo(1);
    assertExact(cache, guard);
  }

  @Test
  void refreshOfAnAbsentKeyLoadsItThroughTheGuard() {
    LoadingCache<Long, String> cache = cache(evenKeys);
    assertThat(cache.refresh(6L).join()).startsWith("v6#");
    assertThat(cache.refresh(7L).join()).isNull();
    assertThat(cache.refreshAll(List.of(8L, 9L, 6L)).join().keySet()).containsExactly(8L, 6L);
    assertThat(cache.asMap().keySet()).containsExactlyInAnyOrder(6L, 8L);
    assertExact(cache, guard);
  }

  @Test
  void refreshAfterWriteReloadsWithoutEntering() {
    LoadingCache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(100)
                .executor(Runnable::run)
                .refreshAfterWrite(Duration.ofMinutes(1)),
            evenKeys);
    String first = cache.get(2L);
    ticker.advance(Duration.ofMinutes(2));
    cache.get(2L);
    assertThat(cache.get(2L)).isNotEqualTo(first);
    assertThat(guard.stats().size()).isEqualTo(1);
    assertExact(cache, guard);
  }

  @Test
  void aReloadReturningNullLeaksTheFingerprintUntilTheNextRebuild() {
    CacheLoader<Long, String> vanishing =
        new CacheLoader<>() {
          @Override
          public String load(Long key) {
            return "v" + key;
          }

          @Override
          public @Nullable String reload(Long key, String oldValue) {
            return null;
          }
        };
    LoadingCache<Long, String> cache = cache(vanishing);
    cache.get(1L);
    cache.refresh(1L).join();
    cache.cleanUp();
    assertThat(cache.estimatedSize()).isZero();
    assertThat(guard.stats().size()).as("the documented leak").isEqualTo(1);
    guard.rebuild().join();
    assertExact(cache, guard);
  }

  @Test
  void aRefreshThatLosesARaceDoesNotDriveTheFilter() {
    List<String> removals = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<String> slowReload = new CompletableFuture<>();
    CacheLoader<Long, String> loader =
        new CacheLoader<>() {
          @Override
          public String load(Long key) {
            return "loaded";
          }

          @Override
          public CompletableFuture<String> asyncReload(
              Long key, String oldValue, Executor executor) {
            return slowReload;
          }
        };
    LoadingCache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .maximumSize(100)
                .executor(Runnable::run)
                .removalListener((Long k, String v, RemovalCause c) -> removals.add(v + ":" + c)),
            loader);
    cache.get(1L);
    CompletableFuture<String> refresh = cache.refresh(1L);
    cache.put(1L, "written meanwhile");
    slowReload.complete("stale reload");
    refresh.join();
    // Caffeine discards the reload and notifies the removal listener of a value that was never in
    // the cache (a phantom); the filter is untouched.
    assertThat(removals).contains("stale reload:REPLACED");
    assertThat(cache.getIfPresent(1L)).isEqualTo("written meanwhile");
    assertThat(guard.stats().size()).isEqualTo(1);
    assertExact(cache, guard);
  }
}
