package io.github.cuckooguard.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.cuckooguard.Funnels;
import io.github.cuckooguard.GuardSpec;
import org.junit.jupiter.api.Test;

/** Configurations the guard cannot keep exact are refused, saying why and what to do. */
class RefusalsTest {

  private static CaffeineGuard<Long, String> guard() {
    return CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).build();
  }

  private static void assertRefusedAndUntouched(
      Caffeine<Object, Object> builder, String... messageParts) {
    String before = builder.toString();
    assertThatThrownBy(() -> guard().wrap(builder))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .contains(messageParts);
    assertThat(builder.toString()).as("a refused builder is left as it was").isEqualTo(before);
  }

  @Test
  void weakKeysAreRefused() {
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumSize(10).weakKeys(),
        "weakKeys() cannot be guarded",
        "null key",
        "Remove weakKeys()");
  }

  @Test
  void weakAndSoftValuesAreRefused() {
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumSize(10).weakValues(),
        "weakValues()/softValues() cannot be guarded",
        "Use strong values");
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumSize(10).softValues(),
        "weakValues()/softValues() cannot be guarded");
  }

  @Test
  void anEvictionListenerOnTheCaffeineBuilderIsRefused() {
    assertRefusedAndUntouched(
        Caffeine.newBuilder()
            .maximumSize(10)
            .evictionListener((Object k, Object v, RemovalCause c) -> {}),
        "already has an eviction listener",
        "CaffeineGuard.newBuilder(funnel).evictionListener(listener)");
  }

  @Test
  void aTickerOnTheCaffeineBuilderIsRefused() {
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumSize(10).ticker(Ticker.systemTicker()),
        "already has a ticker",
        "CaffeineGuard.newBuilder(funnel).ticker(ticker)");
  }

  @Test
  void aCacheThatIsNotSizeBoundedNeedsExpectedInsertions() {
    assertRefusedAndUntouched(Caffeine.newBuilder(), "has no maximumSize", "expectedInsertions(n)");
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumWeight(100).weigher((Object k, Object v) -> 1),
        "bounded by weight",
        "expectedInsertions(n)");
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumSize(Long.MAX_VALUE),
        "maximumSize (9223372036854775807) cannot size the filter",
        "expectedInsertions(n)");
  }

  @Test
  void refreshAfterWriteWithoutALoaderIsRefused() {
    assertRefusedAndUntouched(
        Caffeine.newBuilder().maximumSize(10).refreshAfterWrite(java.time.Duration.ofMinutes(1)),
        "refreshAfterWrite needs a loader");
  }

  @Test
  void aGuardMirrorsExactlyOneCache() {
    CaffeineGuard<Long, String> guard = guard();
    guard.wrap(Caffeine.newBuilder().maximumSize(10));
    assertThatThrownBy(() -> guard.wrap(Caffeine.newBuilder().maximumSize(10)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("build one guard per cache");
    CaffeineGuard.Builder<Long, String> builder = CaffeineGuard.newBuilder(Funnels.longFunnel());
    builder.build();
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("makes one guard");
  }

  @Test
  void aSpecAndSingleSettingsAreGivenOneWayOnly() {
    GuardSpec spec = GuardSpec.newBuilder().expectedInsertions(100).fpp(0.001).build();
    assertThatThrownBy(() -> CaffeineGuard.newBuilder(Funnels.longFunnel()).spec(spec).fpp(0.01))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already given as a spec");
    assertThatThrownBy(() -> CaffeineGuard.newBuilder(Funnels.longFunnel()).seed(1).spec(spec))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("give the settings one way");
    // A spec carries the capacity, so an unbounded cache needs no expectedInsertions setter.
    CaffeineGuard<Long, String> guard =
        CaffeineGuard.<Long, String>newBuilder(Funnels.longFunnel()).spec(spec).build();
    guard.wrap(Caffeine.newBuilder()).put(1L, "v");
    assertThat(guard.mightContain(1L)).isTrue();
  }

  @Test
  void aGuardAnswersOnlyOnceItGuardsACache() {
    assertThatThrownBy(() -> guard().mightContain(1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("call wrap(builder) first");
  }

  @Test
  void badFilterSettingsAndNullsFailAtTheBoundary() {
    assertThatThrownBy(() -> CaffeineGuard.newBuilder(Funnels.longFunnel()).fpp(1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fpp (1.5)");
    assertThatThrownBy(
            () ->
                CaffeineGuard.newBuilder(Funnels.longFunnel())
                    .ticker(Ticker.systemTicker())
                    .ticker(Ticker.systemTicker()))
        .isInstanceOf(IllegalStateException.class);
    CaffeineGuard<Long, String> guard = guard();
    var cache = guard.wrap(Caffeine.newBuilder().maximumSize(10));
    assertThatThrownBy(() -> cache.getIfPresent(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> cache.put(1L, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("value");
    assertThatThrownBy(() -> cache.asMap().put(null, "v"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> guard.wrap(null)).isInstanceOf(NullPointerException.class);
  }
}
