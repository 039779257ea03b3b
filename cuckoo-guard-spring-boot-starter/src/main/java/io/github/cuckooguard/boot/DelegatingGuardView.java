package io.github.cuckooguard.boot;

import io.github.cuckooguard.GuardStats;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link GuardView} over the functions of one guard (a guard bean, a cache's guard), so that
 * every kind of guard is seen the same way. Immutable; as thread-safe as the functions.
 */
final class DelegatingGuardView implements GuardView {

  private final String name;
  private final Kind kind;
  private final Map<String, String> tags;
  private final double expectedFpp;
  private final Supplier<GuardStats> stats;
  private final Supplier<CompletableFuture<Void>> rebuild;
  private final Consumer<String> markStale;

  DelegatingGuardView(
      String name,
      Kind kind,
      Map<String, String> tags,
      double expectedFpp,
      Supplier<GuardStats> stats,
      Supplier<CompletableFuture<Void>> rebuild,
      Consumer<String> markStale) {
    this.name = name;
    this.kind = kind;
    this.tags = Map.copyOf(tags);
    this.expectedFpp = expectedFpp;
    this.stats = stats;
    this.rebuild = rebuild;
    this.markStale = markStale;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Kind kind() {
    return kind;
  }

  @Override
  public Map<String, String> tags() {
    return tags;
  }

  @Override
  public GuardStats stats() {
    return stats.get();
  }

  @Override
  public double expectedFpp() {
    return expectedFpp;
  }

  @Override
  public CompletableFuture<Void> rebuild() {
    return rebuild.get();
  }

  @Override
  public void markStale(String reason) {
    markStale.accept(reason);
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + " guard '" + name + "'";
  }
}
