package io.github.cuckooguard.samples.cdn;

import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.caffeine.CaffeineGuard;
import io.github.cuckooguard.samples.Latencies;
import io.github.cuckooguard.samples.Options;
import io.github.cuckooguard.samples.Report;
import io.github.cuckooguard.samples.StoryOutcome;
import io.github.cuckooguard.samples.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Story 1, a CDN edge. Clients ask an edge node for videos (Zipf-popular) and for pages nobody
 * asked for before. The edge keeps a small memory tier; behind it a storage node holds many more
 * items for a time to live, but asking it costs an HTTP round trip over loopback; behind that, the
 * origin answers after a few milliseconds. The storage node's cache is guarded ({@link
 * io.github.cuckooguard.caffeine.CaffeineGuard}), and the edge asks the guard first: a path the
 * node definitely does not hold (never seen, expired, evicted) goes straight to the origin.
 *
 * <p>Two edges serve the same request streams, in alternating slices: one asks the guard, one does
 * not; each has its own storage node, and both share the origin.
 */
public final class CdnEdgeStory {

  private CdnEdgeStory() {}

  /**
   * What one phase measured.
   *
   * @param guard the storage node's guard at the end, or null without one
   * @param guardBefore the storage node's guard at the start, or null without one
   */
  public record Phase(
      Workload.Result load,
      long memoryHits,
      long probes,
      long probeHits,
      long probesAvoided,
      long originFetches,
      long falseNegatives,
      long wrongAnswers,
      long storedItems,
      @Nullable GuardStats guard,
      @Nullable GuardStats guardBefore) {
    /** Lookups of the guard during the phase. */
    long guardLookups() {
      return guard == null || guardBefore == null ? 0 : guard.lookups() - guardBefore.lookups();
    }

    /** Probes the guard let through that found nothing, during the phase. */
    long falsePositives() {
      return guard == null || guardBefore == null
          ? 0
          : guard.falsePositives() - guardBefore.falsePositives();
    }

    /** The share of lookups of absent paths that the guard let through, during the phase. */
    double observedFpp() {
      long fp = falsePositives();
      return (double) fp / Math.max(1, fp + probesAvoided);
    }
  }

  /** Both phases. */
  public record Outcome(Options options, Phase guarded, Phase unguarded) implements StoryOutcome {
    @Override
    public String story() {
      return "cdn";
    }

    @Override
    public Report report() {
      return CdnEdgeStory.report(options, guarded, unguarded);
    }

    @Override
    public long wrongAnswers() {
      return guarded.wrongAnswers + guarded.falseNegatives + unguarded.wrongAnswers;
    }

    @Override
    public long lookupsAvoided() {
      return guarded.probesAvoided;
    }

    @Override
    public List<String> summary() {
      long wouldProbe = guarded.probes + guarded.probesAvoided;
      return List.of(
          String.format(
              Locale.ROOT,
              "cdn     %,d of %,d storage probes avoided (%s); p99 %s with guard, %s without; %,d wrong answers",
              guarded.probesAvoided,
              wouldProbe,
              Report.percent((double) guarded.probesAvoided / Math.max(1, wouldProbe)),
              Latencies.millis(guarded.load.latencies().percentile(99)),
              Latencies.millis(unguarded.load.latencies().percentile(99)),
              wrongAnswers()));
    }
  }

  /** Runs the story with {@code options} and prints its progress and report to {@code out}. */
  public static Outcome run(Options options, PrintStream out) throws Exception {
    out.printf(
        Locale.ROOT,
        "%nCDN edge: %,d videos (Zipf %.2f) + %s never-seen pages; memory tier %,d items,"
            + " storage node %,d items, TTL %s, origin %s, %d client threads%n",
        options.catalog(),
        options.zipf(),
        Report.percent(options.missShare()),
        options.memoryTier(),
        options.peerTier(),
        Report.seconds(options.ttl()),
        Latencies.millis(options.originLatency()),
        options.threads());
    RequestStream stream =
        new RequestStream(options.catalog(), options.zipf(), options.missShare());
    try (Origin origin = new Origin(options.originLatency());
        Edges edges = new Edges(options, origin)) {
      if (!options.warmup().isZero()) {
        out.println("  warm-up (not measured): fills the tiers");
        Workload.run(
            options.threads(), options.warmup(), options.seed() + 1, out, edges.variants(stream));
      }
      out.println("  with guard: the edge asks the storage node's guard before it probes the node");
      out.println(
          "  without guard: the edge probes the storage node on every miss of its memory tier");
      Edges measured = edges.withFreshCounters();
      GuardStats before = Objects.requireNonNull(measured.guardedNode.guard()).stats();
      List<Workload.Result> results =
          Workload.run(
              options.threads(),
              options.duration(),
              options.seed(),
              out,
              measured.variants(stream));
      Phase guarded = phase(results.get(0), measured.guarded, measured.guardedNode, before);
      Phase unguarded = phase(results.get(1), measured.unguarded, measured.unguardedNode, null);
      Outcome outcome = new Outcome(options, guarded, unguarded);
      outcome.report().print(out);
      return outcome;
    }
  }

  /**
   * Two edges on the same origin, each with its own storage node: one asks the guard, one does not.
   */
  private static final class Edges implements AutoCloseable {
    final StorageNode guardedNode;
    final StorageNode unguardedNode;
    final EdgeNode guarded;
    final EdgeNode unguarded;

    Edges(Options options, Origin origin) throws IOException {
      guardedNode = new StorageNode(options.peerTier(), options.ttl(), options.fpp(), true);
      unguardedNode = new StorageNode(options.peerTier(), options.ttl(), options.fpp(), false);
      guarded = new EdgeNode(options.memoryTier(), options.ttl(), guardedNode, origin.uri(), true);
      unguarded =
          new EdgeNode(options.memoryTier(), options.ttl(), unguardedNode, origin.uri(), false);
    }

    private Edges(Edges tiers) {
      guardedNode = tiers.guardedNode;
      unguardedNode = tiers.unguardedNode;
      guarded = tiers.guarded.withFreshCounters();
      unguarded = tiers.unguarded.withFreshCounters();
    }

    /** The same tiers, with edges whose counters start at zero. */
    Edges withFreshCounters() {
      return new Edges(this);
    }

    Workload.Variant[] variants(RequestStream stream) {
      return new Workload.Variant[] {
        new Workload.Variant("with guard", (thread, random) -> guarded.serve(stream.next(random))),
        new Workload.Variant(
            "without guard", (thread, random) -> unguarded.serve(stream.next(random)))
      };
    }

    @Override
    public void close() {
      guardedNode.close();
      unguardedNode.close();
    }
  }

  private static Phase phase(
      Workload.Result load, EdgeNode edge, StorageNode storage, @Nullable GuardStats before) {
    CaffeineGuard<String, StorageNode.Item> guard = storage.guard();
    return new Phase(
        load,
        edge.memoryHits.sum(),
        edge.probes.sum(),
        edge.probeHits.sum(),
        edge.probesAvoided.sum(),
        edge.originFetches.sum(),
        edge.falseNegatives.sum(),
        edge.wrongAnswers.sum(),
        storage.size(),
        guard == null || before == null ? null : guard.stats(),
        before);
  }

  private static Report report(Options options, Phase with, Phase without) {
    Report report = new Report("CDN edge", "with guard", "without guard");
    report
        .row("requests", with.load.requests(), without.load.requests())
        .row("requests per second", with.load.perSecond(), without.load.perSecond())
        .row("served from the memory tier", with.memoryHits, without.memoryHits)
        .row("storage probes (HTTP round trips)", with.probes, without.probes)
        .row("  found the item", with.probeHits, without.probeHits)
        .row("probes avoided (definitely not stored)", with.probesAvoided, without.probesAvoided)
        .row("origin fetches", with.originFetches, without.originFetches)
        .row("latency p50", latency(with, 50), latency(without, 50))
        .row("latency p99", latency(with, 99), latency(without, 99))
        .row(
            "latency mean",
            Latencies.millis(with.load.latencies().mean()),
            Latencies.millis(without.load.latencies().mean()))
        .row("wrong answers (content != origin's)", with.wrongAnswers, without.wrongAnswers)
        .row("false negatives (checked against the store)", with.falseNegatives, "-");
    GuardStats g = with.guard;
    if (g != null) {
      report.note(
          "guard: %,d lookups, %,d definite misses, %,d false positives (probe found nothing):"
              + " observed fpp %s, target %s",
          with.guardLookups(),
          with.probesAvoided,
          with.falsePositives(),
          Report.percent(with.observedFpp()),
          Report.percent(options.fpp()));
      report.note(
          "filter: %s for a node of up to %,d items (%.1f bits per item), now %,d fingerprints for %,d"
              + " stored items (load %.2f), %d rebuilds",
          Report.bytes(g.sizeInBytes()),
          options.peerTier(),
          8.0 * g.sizeInBytes() / options.peerTier(),
          g.size(),
          with.storedItems,
          g.loadFactor(),
          g.rebuilds());
    }
    return report;
  }

  private static String latency(Phase phase, double percent) {
    return Latencies.millis(phase.load.latencies().percentile(percent));
  }
}
