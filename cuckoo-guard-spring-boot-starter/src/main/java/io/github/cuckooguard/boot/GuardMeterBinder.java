package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;

/**
 * The meters of one guard, named like Micrometer's cache metrics ({@code cache.gets{result=…}}):
 * every meter has the tags {@code guard} (the guard's name) and {@code kind} ({@code bean}, {@code
 * entity} or {@code cache}), and a cache's guard also {@code cache} and {@code cache.manager}, as
 * Boot's cache meters of the same cache ({@link GuardView#tags()}).
 *
 * <ul>
 *   <li>{@code cuckooguard.lookups{result=definite-miss|might-contain}}: function counter
 *   <li>{@code cuckooguard.false.positives}: function counter (reported false positives)
 *   <li>{@code cuckooguard.fpp{estimate=observed|expected}}: gauges ({@code expected} only when the
 *       configured fpp is known: guard beans, and the Caffeine caches the starter guards)
 *   <li>{@code cuckooguard.load}: gauge, share of slots in use
 *   <li>{@code cuckooguard.size}: gauge, fingerprints held; {@code cuckooguard.size.bytes}: gauge
 *   <li>{@code cuckooguard.rebuilds{result=success|failure}}: function counters of completed and of
 *       failed rebuilds; {@code cuckooguard.rebuild.last.duration}: time gauge; {@code
 *       cuckooguard.rebuild.failed}: gauge 1 while the last rebuild failed, else 0
 *   <li>{@code cuckooguard.pass.through}: gauge 1 while every lookup answers "might contain"
 * </ul>
 *
 * Every meter reads {@link GuardView#stats()} when it is read; nothing is cached. Thread-safe.
 */
public final class GuardMeterBinder implements MeterBinder {

  private final GuardView guard;

  /** The binder of {@code guard}'s meters. */
  public GuardMeterBinder(GuardView guard) {
    this.guard = guard;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Tags tags =
        Tags.of(
                "guard",
                guard.name(),
                "kind",
                guard.kind().name().toLowerCase(java.util.Locale.ROOT))
            .and(
                Tags.of(
                    guard.tags().entrySet().stream()
                        .map(e -> Tag.of(e.getKey(), e.getValue()))
                        .toList()));
    GuardView g = guard;
    FunctionCounter.builder("cuckooguard.lookups", g, v -> v.stats().definiteMisses())
        .tags(tags)
        .tag("result", "definite-miss")
        .description("Lookups the guard answered with a definite miss")
        .register(registry);
    FunctionCounter.builder(
            "cuckooguard.lookups",
            g,
            v -> {
              GuardStats s = v.stats();
              return s.lookups() - s.definiteMisses();
            })
        .tags(tags)
        .tag("result", "might-contain")
        .description("Lookups the guard let through to the store")
        .register(registry);
    FunctionCounter.builder("cuckooguard.false.positives", g, v -> v.stats().falsePositives())
        .tags(tags)
        .description("Lookups let through for keys the store did not have")
        .register(registry);
    Gauge.builder("cuckooguard.fpp", g, v -> v.stats().observedFpp())
        .tags(tags)
        .tag("estimate", "observed")
        .description("Observed false positive probability (NaN before any miss)")
        .register(registry);
    if (!Double.isNaN(g.expectedFpp())) {
      Gauge.builder("cuckooguard.fpp", g, GuardView::expectedFpp)
          .tags(tags)
          .tag("estimate", "expected")
          .description("Configured false positive probability")
          .register(registry);
    }
    Gauge.builder("cuckooguard.load", g, v -> v.stats().loadFactor())
        .tags(tags)
        .description("Share of the filter's slots in use")
        .register(registry);
    Gauge.builder("cuckooguard.size", g, v -> v.stats().size())
        .tags(tags)
        .description("Fingerprints in the current filter")
        .register(registry);
    Gauge.builder("cuckooguard.size.bytes", g, v -> v.stats().sizeInBytes())
        .tags(tags)
        .baseUnit("bytes")
        .description("Bytes of fingerprint storage in use")
        .register(registry);
    FunctionCounter.builder("cuckooguard.rebuilds", g, v -> v.stats().rebuilds())
        .tags(tags)
        .tag("result", "success")
        .description("Rebuilds that completed and swapped in their filter")
        .register(registry);
    FunctionCounter.builder("cuckooguard.rebuilds", g, v -> v.stats().rebuildFailures())
        .tags(tags)
        .tag("result", "failure")
        .description(
            "Rebuilds that failed (the key source threw, or the executor rejected the rebuild)")
        .register(registry);
    TimeGauge.builder(
            "cuckooguard.rebuild.last.duration",
            g,
            TimeUnit.NANOSECONDS,
            v -> v.stats().lastRebuildDuration().toNanos())
        .tags(tags)
        .description("Duration of the last successful rebuild")
        .register(registry);
    Gauge.builder(
            "cuckooguard.rebuild.failed", g, v -> v.stats().lastRebuildFailure() != null ? 1 : 0)
        .tags(tags)
        .description("1 while the most recent rebuild failed, else 0")
        .register(registry);
    Gauge.builder("cuckooguard.pass.through", g, v -> v.stats().passThrough() ? 1 : 0)
        .tags(tags)
        .description("1 while the guard answers \"might contain\" for every key")
        .register(registry);
  }
}
