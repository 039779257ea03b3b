package io.github.cuckooguard.caffeine;

import static io.github.cuckooguard.caffeine.Mirror.assertExact;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.cuckooguard.Funnels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rebuild key source meets the KeySource contract where "iterate, then cleanUp()" does not, and
 * writes in flight need nothing from it.
 */
class RebuildTest {

  private final FakeTicker ticker = new FakeTicker();

  /**
   * 3,000 entries expire unevicted; 3,000 stay live. With 4-bit fingerprints the two sets share
   * fingerprints heavily, so if the rebuild skipped the expired entries (as Caffeine's iterator
   * does) their later evictions would remove live keys' copies from the rebuilt filter.
   */
  @ParameterizedTest
  @ValueSource(strings = {"expireAfterWrite", "expireAfterAccess", "expireAfter"})
  void expiredButUnevictedEntriesCannotCauseUnpairedRemovesAfterARebuild(String expiry) {
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(8_000)
            .fingerprintBits(4)
            .seed(9)
            .ticker(ticker)
            .build();
    UnaryOperator<Caffeine<Object, Object>> expiring =
        switch (expiry) {
          case "expireAfterWrite" -> b -> b.expireAfterWrite(Duration.ofMinutes(1));
          case "expireAfterAccess" -> b -> b.expireAfterAccess(Duration.ofMinutes(1));
          default ->
              b -> b.expireAfter(Expiry.writing((Object k, Object v) -> Duration.ofMinutes(1)));
        };
    // Maintenance only when the test calls cleanUp(): Caffeine's own iteration would otherwise
    // schedule the eviction of the expired entries it skips.
    Cache<Long, String> cache =
        guard.wrap(expiring.apply(Caffeine.newBuilder().executor(task -> {})));
    LongStream.range(0, 3_000).forEach(k -> cache.put(k, "old"));
    ticker.advance(Duration.ofSeconds(30));
    List<Long> live = LongStream.range(3_000, 6_000).boxed().collect(Collectors.toList());
    live.forEach(k -> cache.put(k, "new"));
    ticker.advance(Duration.ofSeconds(40));
    assertThat(new ArrayList<>(cache.asMap().keySet()))
        .as("iteration skips expired entries")
        .hasSize(3_000);
    assertThat(cache.estimatedSize()).as("which are still in the map").isEqualTo(6_000);

    guard.rebuild().join();
    assertThat(guard.stats().size())
        .as("the scan emitted the expired entries too")
        .isEqualTo(6_000);

    for (int i = 0; i < 20 && cache.estimatedSize() > 3_000; i++) {
      ticker.advance(Duration.ofSeconds(1));
      cache.cleanUp();
    }
    assertThat(cache.estimatedSize()).isEqualTo(3_000);
    assertThat(live.stream().filter(k -> !guard.mightContain(k))).isEmpty();
    assertExact(cache, guard);
  }

  /**
   * A write enters its key inside Caffeine's compute a moment before the entry is published; a
   * rebuild that runs in that moment cannot see the entry, so the guard must hold the key in flight
   * itself. The weigher runs exactly there (after the value is computed, before the node is
   * published), so a blocking weigher holds a write in that moment while the rebuild completes.
   */
  @Test
  void aRebuildDuringAWriteThatEnteredItsKeyButHasNotPublishedItKeepsTheKey() throws Exception {
    CountDownLatch inWeigher = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
            .expectedInsertions(1_000)
            .fingerprintBits(4)
            .seed(1)
            .build();
    Cache<Long, String> cache =
        guard.wrap(
            Caffeine.newBuilder()
                .executor(Runnable::run)
                .maximumWeight(1_000_000)
                .weigher(
                    (Long k, String v) -> {
                      if (k == 42L) {
                        inWeigher.countDown();
                        awaitUninterruptibly(release);
                      }
                      return 1;
                    }));
    LongStream.range(0, 100).forEach(k -> cache.put(k * 1_000, "v"));

    CompletableFuture<String> write =
        CompletableFuture.supplyAsync(() -> cache.get(42L, k -> "held"));
    assertThat(inWeigher.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(guard.mightContain(42L)).as("entered before it is visible").isTrue();
    assertThat(cache.asMap().containsKey(42L)).isFalse();

    guard.rebuild().get(30, TimeUnit.SECONDS);
    assertThat(guard.stats().rebuilds()).isEqualTo(1);
    assertThat(write).as("the rebuild did not wait for the write").isNotDone();
    assertThat(guard.mightContain(42L)).as("held in flight by the guard across the swap").isTrue();

    release.countDown();
    assertThat(write.get(30, TimeUnit.SECONDS)).isEqualTo("held");
    assertThat(guard.mightContain(42L)).isTrue();
    guard.rebuild().get(30, TimeUnit.SECONDS);
    assertExact(cache, guard);
  }

  /**
   * Regression: a put over an expired entry begins the new entry's enter before Caffeine evicts the
   * old one inside the put. With the eviction reported by {@code keyLeft}, a rebuild running then
   * released the copy it held for the new enter, its scan copy was settled away, and the rebuilt
   * filter lacked a key the cache held. The rebuild here is paused at its scan's first step (its
   * first ticker read) while the put runs, so the order is exact every time.
   */
  @Test
  void aPutOverAnExpiredEntryDuringARebuildKeepsTheNewEntry() throws Exception {
    CountDownLatch scanning = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    AtomicBoolean armed = new AtomicBoolean();
    ExecutorService rebuilds =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "paused-rebuild"));
    Ticker pausing =
        () -> {
          if (Thread.currentThread().getName().equals("paused-rebuild")
              && armed.compareAndSet(true, false)) {
            scanning.countDown();
            awaitUninterruptibly(resume);
          }
          return ticker.read();
        };
    try {
      CaffeineGuard<Long, String> guard =
          CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel())
              .expectedInsertions(100)
              .seed(3)
              .ticker(pausing)
              .executor(rebuilds)
              .build();
      // No maintenance: the expired entry can only be evicted inside the put.
      Cache<Long, String> cache =
          guard.wrap(
              Caffeine.newBuilder().executor(task -> {}).expireAfterWrite(Duration.ofMinutes(1)));
      cache.put(1L, "old");
      ticker.advance(Duration.ofMinutes(2));
      assertThat(cache.estimatedSize()).as("expired, not evicted").isEqualTo(1);

      armed.set(true);
      CompletableFuture<Void> rebuild = guard.rebuild();
      assertThat(scanning.await(30, TimeUnit.SECONDS)).isTrue();
      cache.put(
          1L, "new"); // enter begins, the expired entry is evicted inside the put, enter visible
      resume.countDown();
      rebuild.get(30, TimeUnit.SECONDS);

      assertThat(cache.asMap().get(1L)).as("present (read without the guard)").isEqualTo("new");
      assertThat(guard.mightContain(1L)).as("the rebuilt filter holds the new entry").isTrue();
      assertThat(cache.getIfPresent(1L)).isEqualTo("new");
      assertThat(guard.stats().rebuilds()).isEqualTo(1);
      guard
          .rebuild()
          .get(
              30,
              TimeUnit.SECONDS); // the raced rebuild may keep a spare copy; a quiet one is exact
      assertExact(cache, guard);
    } finally {
      resume.countDown();
      rebuilds.shutdownNow();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
