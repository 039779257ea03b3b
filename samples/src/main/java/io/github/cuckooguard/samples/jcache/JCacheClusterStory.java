package io.github.cuckooguard.samples.jcache;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cluster.MembershipAdapter;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.config.CacheConfig;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.MaxSizePolicy;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.jcache.GuardSettings;
import io.github.cuckooguard.jcache.GuardedCache;
import io.github.cuckooguard.jcache.GuardedCachingProvider;
import io.github.cuckooguard.samples.Latencies;
import io.github.cuckooguard.samples.Options;
import io.github.cuckooguard.samples.Report;
import io.github.cuckooguard.samples.StoryOutcome;
import io.github.cuckooguard.samples.Workload;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.CacheManager;

/**
 * Story 3, a JCache cluster. Two Hazelcast members share a cache, each owning about half of its
 * partitions. Member A loads the first entries; then an application on each member uses the cache
 * through JCache: the one on A writes new entries, the one on B reads. Both get their caches from a
 * {@link GuardedCachingProvider} wrapped around Hazelcast's provider, so each cache is a {@link
 * GuardedCache}, and the two guards of the cache form one guard group over the cluster
 * (cuckoo-guard-hazelcast is on the class path): a put on A returns only after B's guard holds the
 * key, so B finds every entry A has just written. A get on B of a key the guard knows is absent
 * returns null without asking Hazelcast, which for about half of the keys means without a network
 * hop to A. The guards first read the entries A loaded. Then A leaves the cluster: a membership
 * listener marks B's guard stale, it answers "might be present" for every key (correct, slower)
 * until it has re-read the cache, and then short-circuits again.
 *
 * <p>Gets through the guarded cache and through B's plain Hazelcast cache (the same cache without
 * the guard) alternate in slices; every answer is checked.
 */
public final class JCacheClusterStory {

  private static final String CACHE = "catalog";
  private static final int CHECK_ABSENT = 10_000;

  private JCacheClusterStory() {}

  /**
   * What the gets of one variant measured.
   *
   * @param negativeGets gets of keys that do not exist
   * @param negativeNanos time those gets took, in total
   * @param roundTrips gets that reached Hazelcast
   */
  public record Phase(
      Workload.Result load,
      long negativeGets,
      long negativeNanos,
      long roundTrips,
      long wrongAnswers) {
    double negativeMicros() {
      return negativeNanos / 1e3 / Math.max(1, negativeGets);
    }
  }

  /**
   * What happened after member A left.
   *
   * @param passThrough from A's shutdown until B's guard short-circuited again
   * @param getsPassedThrough negative gets that reached Hazelcast because the guard was in doubt
   * @param keysChecked entries read back through the guarded cache afterwards, each found
   * @param absentShortCircuited of {@value #CHECK_ABSENT} gets of absent keys afterwards, those the
   *     guard answered
   * @param wrongAnswers wrong answers among all of these gets
   */
  public record Recovery(
      Duration passThrough,
      long getsPassedThrough,
      long keysChecked,
      long absentShortCircuited,
      long wrongAnswers) {}

  /** Both variants, the recovery, and the guard. */
  public record Outcome(
      Options options,
      Duration startup,
      Duration initialScan,
      int written,
      double remoteShare,
      Phase guarded,
      Phase plain,
      Recovery recovery,
      GuardStats guard)
      implements StoryOutcome {
    @Override
    public String story() {
      return "jcache";
    }

    @Override
    public Report report() {
      return JCacheClusterStory.report(this);
    }

    @Override
    public long wrongAnswers() {
      return guarded.wrongAnswers + plain.wrongAnswers + recovery.wrongAnswers;
    }

    @Override
    public long lookupsAvoided() {
      return guarded.load.requests() - guarded.roundTrips;
    }

    @Override
    public List<String> summary() {
      return List.of(
          String.format(
              Locale.ROOT,
              "jcache  %,d of %,d gets answered without a Hazelcast round trip; negative get %.1f µs vs %.1f µs;"
                  + " member left, guard exact again after %.1f s; %,d wrong answers",
              lookupsAvoided(),
              guarded.load.requests(),
              guarded.negativeMicros(),
              plain.negativeMicros(),
              recovery.passThrough.toMillis() / 1e3,
              wrongAnswers()));
    }
  }

  /** Runs the story with {@code options} and prints its progress and report to {@code out}. */
  public static Outcome run(Options options, PrintStream out) throws Exception {
    out.printf(
        Locale.ROOT,
        "%nJCache cluster: two Hazelcast members on 127.0.0.1, %,d entries, %s of gets for"
            + " absent keys, %d reader threads on member B%n",
        options.entries(),
        Report.percent(options.missShare()),
        options.threads());
    long start = System.nanoTime();
    try (Cluster cluster = new Cluster()) {
      Duration startup = Duration.ofNanos(System.nanoTime() - start);
      out.printf(
          Locale.ROOT, "  cluster of 2 members formed in %.1f s%n", startup.toMillis() / 1e3);
      Cache<String, String> onA =
          cluster.cacheManager(cluster.first).createCache(CACHE, cacheConfig());
      load(onA, options.entries(), out);

      GuardedCachingProvider guardedProvider =
          new GuardedCachingProvider(cluster.provider(cluster.second));
      Properties properties = HazelcastCachingProvider.propertiesByInstanceItself(cluster.second);
      properties.putAll(guardProperties(options));
      Cache<String, String> app =
          guardedProvider
              .getCacheManager(null, null, properties)
              .getCache(CACHE, String.class, String.class);
      @SuppressWarnings("unchecked")
      GuardedCache<String, String> guarded = app.unwrap(GuardedCache.class);
      Cache<String, String> plain =
          cluster.cacheManager(cluster.second).getCache(CACHE, String.class, String.class);
      Properties propertiesOnA = HazelcastCachingProvider.propertiesByInstanceItself(cluster.first);
      propertiesOnA.putAll(guardProperties(options));
      CacheManager guardedManagerOnA =
          new GuardedCachingProvider(cluster.provider(cluster.first))
              .getCacheManager(null, null, propertiesOnA);
      Cache<String, String> writerOnA =
          guardedManagerOnA.getCache(CACHE, String.class, String.class);
      Duration initialScan = awaitExact(guarded, "reads the existing entries", out);

      CountDownLatch left = new CountDownLatch(1);
      cluster
          .second
          .getCluster()
          .addMembershipListener(
              new MembershipAdapter() {
                @Override
                public void memberRemoved(MembershipEvent event) {
                  guarded.markStale(
                      "member " + event.getMember().getAddress() + " left: its events may be lost");
                  left.countDown();
                }
              });

      AtomicInteger written = new AtomicInteger(options.entries());
      Phase[] phases = readWhileWriting(options, writerOnA, guarded, plain, written, out);
      double remoteShare = remoteShare(cluster, options.seed());
      GuardStats stats = guarded.stats();
      guardedManagerOnA.close(); // A's application stops before its member leaves
      Recovery recovery = memberLeaves(cluster, left, guarded, written.get(), options.seed(), out);
      Outcome outcome =
          new Outcome(
              options,
              startup,
              initialScan,
              written.get() - options.entries(),
              remoteShare,
              phases[0],
              phases[1],
              recovery,
              stats);
      outcome.report().print(out);
      return outcome;
    }
  }

  /** The guard's settings of both applications: room for the entries the story writes. */
  private static Properties guardProperties(Options options) {
    Properties properties = new Properties();
    properties.setProperty(
        GuardSettings.PREFIX + GuardSettings.EXPECTED_INSERTIONS,
        String.valueOf(options.entries() * 2L));
    properties.setProperty(GuardSettings.PREFIX + GuardSettings.FPP, String.valueOf(options.fpp()));
    return properties;
  }

  /**
   * The cache's configuration. Hazelcast bounds a JCache to 10,000 entries per member by default
   * and evicts beyond; its evictions fire no JCache event, so a guard would keep their fingerprints
   * (false positives, never false negatives) until its next rebuild. The story's cache holds all
   * its entries.
   */
  private static CacheConfig<String, String> cacheConfig() {
    CacheConfig<String, String> config = new CacheConfig<>();
    config.setTypes(String.class, String.class);
    config.setEvictionConfig(
        new EvictionConfig()
            .setMaxSizePolicy(MaxSizePolicy.ENTRY_COUNT)
            .setSize(Integer.MAX_VALUE));
    return config;
  }

  private static String key(int i) {
    return "item-" + i;
  }

  private static String value(String key) {
    return "value of " + key;
  }

  private static void load(Cache<String, String> cache, int entries, PrintStream out) {
    long start = System.nanoTime();
    long lastPrint = start;
    Map<String, String> batch = new HashMap<>();
    for (int i = 0; i < entries; i++) {
      batch.put(key(i), value(key(i)));
      if (batch.size() == 1_000 || i == entries - 1) {
        cache.putAll(batch);
        batch.clear();
        if (System.nanoTime() - lastPrint > 2_000_000_000L) {
          lastPrint = System.nanoTime();
          out.printf(
              Locale.ROOT,
              "    loading: %,d of %,d entries after %.0f s%n",
              i + 1,
              entries,
              (lastPrint - start) / 1e9);
        }
      }
    }
    out.printf(
        Locale.ROOT,
        "  member A wrote %,d entries in %.1f s%n",
        entries,
        (System.nanoTime() - start) / 1e9);
  }

  /** Waits until the guard answers from its filter again, printing progress; the time it took. */
  private static Duration awaitExact(GuardedCache<?, ?> guarded, String what, PrintStream out)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + Duration.ofMinutes(2).toNanos();
    long lastPrint = start;
    while (guarded.isPassThrough()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "the guard is still in pass-through after 2 minutes: " + guarded.stats());
      }
      if (System.nanoTime() - lastPrint > 2_000_000_000L) {
        lastPrint = System.nanoTime();
        out.printf(
            Locale.ROOT, "    member B's guard %s (%.0f s)%n", what, (lastPrint - start) / 1e9);
      }
      Thread.sleep(10);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    out.printf(Locale.ROOT, "  member B's guard %s: %.1f s%n", what, took.toMillis() / 1e3);
    return took;
  }

  /**
   * Gets on B, guarded and plain, while a writer on A adds entries through its guarded cache; the
   * writer stops with the gets.
   */
  private static Phase[] readWhileWriting(
      Options options,
      Cache<String, String> writerOnA,
      GuardedCache<String, String> guarded,
      Cache<String, String> plain,
      AtomicInteger written,
      PrintStream out)
      throws Exception {
    Thread writer =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                String key = key(written.get());
                writerOnA.put(key, value(key));
                // the put on A returned: the entry is visible, and B's guard holds the key
                written.incrementAndGet();
                try {
                  Thread.sleep(2);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "writer-on-member-a");
    Reader withGuard = new Reader("with guard", guarded, written, options.missShare());
    Reader withoutGuard = new Reader("without guard", plain, written, options.missShare());
    long missesBefore = guarded.stats().definiteMisses();
    writer.start();
    try {
      if (!options.warmup().isZero()) {
        out.println("  warm-up (not measured)");
        Workload.run(
            options.threads(),
            options.warmup(),
            options.seed() + 1,
            out,
            new Reader("with guard", guarded, written, options.missShare()).variant(),
            new Reader("without guard", plain, written, options.missShare()).variant());
        missesBefore = guarded.stats().definiteMisses();
      }
      out.println("  gets on member B while the application on A keeps writing new entries");
      List<Workload.Result> results =
          Workload.run(
              options.threads(),
              options.duration(),
              options.seed(),
              out,
              withGuard.variant(),
              withoutGuard.variant());
      long shortCircuited = guarded.stats().definiteMisses() - missesBefore;
      return new Phase[] {
        withGuard.phase(results.get(0), results.get(0).requests() - shortCircuited),
        withoutGuard.phase(results.get(1), results.get(1).requests())
      };
    } finally {
      writer.interrupt();
      writer.join();
    }
  }

  /**
   * The gets of one variant: existing keys (each must be found) and absent keys (each must not).
   */
  private static final class Reader {
    final String name;
    final Cache<String, String> cache;
    final AtomicInteger written;
    final double missShare;
    final LongAdder negativeGets = new LongAdder();
    final LongAdder negativeNanos = new LongAdder();
    final LongAdder wrong = new LongAdder();

    Reader(String name, Cache<String, String> cache, AtomicInteger written, double missShare) {
      this.name = name;
      this.cache = cache;
      this.written = written;
      this.missShare = missShare;
    }

    Workload.Variant variant() {
      return new Workload.Variant(name, (thread, random) -> get(random));
    }

    private void get(SplittableRandom random) {
      if (random.nextDouble() < missShare) {
        String key = "absent-" + Long.toHexString(random.nextLong());
        long start = System.nanoTime();
        String found = cache.get(key);
        negativeNanos.add(System.nanoTime() - start);
        negativeGets.increment();
        if (found != null) {
          wrong.increment();
        }
      } else {
        String key = key(random.nextInt(written.get()));
        if (!value(key).equals(cache.get(key))) {
          wrong.increment();
        }
      }
    }

    Phase phase(Workload.Result load, long roundTrips) {
      return new Phase(load, negativeGets.sum(), negativeNanos.sum(), roundTrips, wrong.sum());
    }
  }

  /** The share of absent keys whose partition is owned by member A, as seen from member B. */
  private static double remoteShare(Cluster cluster, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int remote = 0;
    for (int i = 0; i < 1_000; i++) {
      if (Cluster.remote(cluster.second, "absent-" + Long.toHexString(random.nextLong()))) {
        remote++;
      }
    }
    return remote / 1_000.0;
  }

  /**
   * Member A leaves; B keeps asking for absent keys until its guard is exact again, then checks
   * every entry.
   */
  private static Recovery memberLeaves(
      Cluster cluster,
      CountDownLatch left,
      GuardedCache<String, String> guarded,
      int entries,
      long seed,
      PrintStream out)
      throws InterruptedException {
    out.println(
        "  member A leaves the cluster (graceful shutdown: its partitions move to member B)");
    long start = System.nanoTime();
    cluster.first.shutdown();
    if (!left.await(2, TimeUnit.MINUTES)) {
      throw new IllegalStateException("member B did not notice member A leaving in 2 minutes");
    }
    SplittableRandom random = new SplittableRandom(seed);
    long passedThrough = 0;
    long wrong = 0;
    long deadline = start + Duration.ofMinutes(2).toNanos();
    while (guarded.isPassThrough() || guarded.stats().rebuilding()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "member B's guard did not recover in 2 minutes: " + guarded.stats());
      }
      if (guarded.get("absent-" + Long.toHexString(random.nextLong())) != null) {
        wrong++;
      }
      passedThrough++;
      Thread.sleep(1);
    }
    Duration passThrough = Duration.ofNanos(System.nanoTime() - start);
    out.printf(
        Locale.ROOT,
        "  member B's guard re-read the cache and is exact again after %.1f s%n",
        passThrough.toMillis() / 1e3);
    for (int i = 0; i < entries; i++) {
      if (!value(key(i)).equals(guarded.get(key(i)))) {
        wrong++;
      }
    }
    long missesBefore = guarded.stats().definiteMisses();
    for (int i = 0; i < CHECK_ABSENT; i++) {
      if (guarded.get("absent-" + Long.toHexString(random.nextLong())) != null) {
        wrong++;
      }
    }
    long shortCircuited = guarded.stats().definiteMisses() - missesBefore;
    return new Recovery(passThrough, passedThrough, entries, shortCircuited, wrong);
  }

  private static Report report(Outcome o) {
    Phase with = o.guarded;
    Phase without = o.plain;
    Report report = new Report("JCache cluster", "with guard", "without guard");
    report
        .row("gets on member B", with.load.requests(), without.load.requests())
        .row("gets per second", with.load.perSecond(), without.load.perSecond())
        .row("  of absent keys", with.negativeGets, without.negativeGets)
        .row("round trips to Hazelcast", with.roundTrips, without.roundTrips)
        .row("round trips avoided", with.load.requests() - with.roundTrips, 0L)
        .row(
            "negative get, mean",
            String.format(Locale.ROOT, "%.1f µs", with.negativeMicros()),
            String.format(Locale.ROOT, "%.1f µs", without.negativeMicros()))
        .row(
            "any get, p50",
            Latencies.millis(with.load.latencies().percentile(50)),
            Latencies.millis(without.load.latencies().percentile(50)))
        .row(
            "any get, p99",
            Latencies.millis(with.load.latencies().percentile(99)),
            Latencies.millis(without.load.latencies().percentile(99)))
        .row("wrong answers", with.wrongAnswers, without.wrongAnswers);
    GuardStats g = o.guard;
    report.note(
        "about %s of absent keys belong to partitions owned by member A: without the guard their get"
            + " crosses the network",
        Report.percent(o.remoteShare));
    report.note(
        "A's application wrote %,d new entries while B read (warm-up included); each put on A returned"
            + " after B's guard had the key (the cache's guard group)",
        o.written);
    report.note(
        "guard: %,d fingerprints in %s, observed fpp %s (target %s); first scan of the %,d entries %.1f s",
        g.size(),
        Report.bytes(g.sizeInBytes()),
        Report.percent(g.observedFpp()),
        Report.percent(o.options.fpp()),
        o.options.entries(),
        o.initialScan.toMillis() / 1e3);
    Recovery r = o.recovery;
    report.note(
        "member A left: B's guard passed %,d gets through to Hazelcast for %.1f s, until it had re-read"
            + " the cache; then all %,d entries found, %,d of %,d absent keys short-circuited, %,d wrong answers",
        r.getsPassedThrough,
        r.passThrough.toMillis() / 1e3,
        r.keysChecked,
        r.absentShortCircuited,
        CHECK_ABSENT,
        r.wrongAnswers);
    return report;
  }
}
