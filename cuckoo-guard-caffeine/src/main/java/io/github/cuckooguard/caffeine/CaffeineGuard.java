package io.github.cuckooguard.caffeine;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.RemovalListener;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import io.github.cuckooguard.caffeine.internal.BuilderInspection;
import io.github.cuckooguard.caffeine.internal.CacheKeySource;
import io.github.cuckooguard.caffeine.internal.GuardEvictionListener;
import io.github.cuckooguard.caffeine.internal.GuardedCache;
import io.github.cuckooguard.caffeine.internal.GuardedCacheLoader;
import io.github.cuckooguard.caffeine.internal.GuardedLoadingCache;
import io.github.cuckooguard.caffeine.internal.GuardedWrites;
import io.github.cuckooguard.caffeine.internal.ScanAwareTicker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A cuckoo filter that mirrors the keys of one Caffeine cache, and the guarded cache itself: {@link
 * #mightContain} answers {@code false} only for a key that is definitely not in the cache, so
 * callers that route around the cache (asking a peer, another tier, the origin) can skip work for
 * it.
 *
 * <pre>{@code
 * CaffeineGuard<String, Page> guard = CaffeineGuard.<String, Page>newBuilder(Funnels.stringFunnel())
 *     .fpp(0.001)
 *     .evictionListener(myEvictionListener)          // optional: yours, called after the guard's
 *     .build();
 * Cache<String, Page> cache = guard.wrap(Caffeine.newBuilder()
 *     .maximumSize(1_000_000)                         // also sizes the filter
 *     .expireAfterWrite(Duration.ofMinutes(5))
 *     .removalListener(myRemovalListener));           // stays on the builder, keeps working
 *
 * if (!guard.mightContain(url)) {                     // definitely not cached here
 *   return askOrigin(url);                            // skip the peer round trip
 * }
 * }</pre>
 *
 * <p><b>What {@link #wrap} does to the builder.</b> It installs the guard's eviction listener
 * (evictions of size, weight and expiry leave the filter inside Caffeine's atomic removal) and the
 * guard's ticker (which wraps {@link Builder#ticker}, so that a rebuild also sees entries that
 * expired but are not evicted yet), then builds the one cache this guard mirrors. Your own eviction
 * listener and ticker are therefore given to the guard's {@link Builder}, not to the Caffeine
 * builder; a Caffeine builder that already has either is refused. This differs from the shape
 * {@code .evictionListener(guard.evictionListener())} on purpose: the guard must own both, and
 * owning them through {@code wrap} makes a missing or foreign listener impossible rather than a
 * runtime check. Use the builder for this one cache only.
 *
 * <p><b>The guarded cache</b> implements Caffeine's {@link Cache} / {@link LoadingCache}, so code
 * written against those compiles and behaves unchanged, with these guarantees:
 *
 * <ul>
 *   <li>Every write path keeps the filter exact: {@code put}, {@code putAll}, {@code get(k, fn)},
 *       {@code getAll}, loads, and {@code asMap()} with its {@code put*}, {@code compute*}, {@code
 *       merge}, {@code replace*}, {@code remove}, and its key, value and entry views and their
 *       iterators ({@code remove}, {@code setValue}), and {@code policy().expireVariably()} writes.
 *       Each follows cuckoo-guard-core's write protocol: a key's enter begins before its entry can
 *       be seen (inside the compute that creates it, or before a plain put) and ends once Caffeine
 *       has published it; a replace is not an enter; a removal leaves inside the compute that
 *       removes, or is announced before a plain removal; an eviction leaves in the eviction
 *       listener. {@code invalidateAll()} removes key by key.
 *   <li>{@code getIfPresent} and {@code getAllPresent} ask Caffeine, whose answer is exact (a
 *       present key is always found); the guard does not short-circuit them, because Caffeine's own
 *       miss, one hash-map probe, costs less than a filter lookup. Caffeine's statistics, and a
 *       {@code StatsCounter} of your own, count every lookup as without the guard, and a lookup
 *       does no guard work at all. {@link #stats()} keeps an estimate of the filter's fpp (and its
 *       drift trigger works) from the write side: on average one in {@value
 *       io.github.cuckooguard.caffeine.internal.GuardedWrites#FPP_SAMPLE_EVERY} puts of a key the
 *       cache does not hold asks the guard about the key first and reports a "might contain" as a
 *       false positive. Loads ({@code get}, {@code getAll}, {@code LoadingCache.get}) run inside
 *       Caffeine's computes.
 *   <li>Paths that cannot be exact are made safe: a refresh whose reload returns null removes the
 *       entry without an event, and a bulk load that overwrites a live entry keeps the extra
 *       fingerprint, each a false positive until the next rebuild. Leaks never cause false
 *       negatives; the guard's rebuild clears them.
 *   <li>The removal listener is never used by the guard (it is asynchronous and unordered).
 * </ul>
 *
 * Documented differences from plain Caffeine: {@code LoadingCache.refresh} of an absent key loads
 * on the calling thread; a refresh that races with the removal of its key yields null; {@code
 * invalidate}/{@code remove} of an expired entry leaves it to Caffeine's maintenance.
 *
 * <p><b>Refused configurations</b> (an {@link IllegalArgumentException} saying why and what to do):
 * {@code weakKeys()}, {@code weakValues()}, {@code softValues()}, an eviction listener or ticker
 * set on the Caffeine builder, and a cache that is not size-bounded when {@link
 * Builder#expectedInsertions} is not set. There is no asynchronous variant: an {@code AsyncCache}
 * publishes an entry before its value exists.
 *
 * <p><b>Rebuilds</b> read the cache's keys, also those of expired entries not evicted yet (see
 * {@link CuckooGuard}); keys whose write is in flight are held by the guard itself.
 *
 * <p>Thread safety: every method may be called from any thread.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class CaffeineGuard<K, V> {

  private final String name;
  private final CuckooGuard.Builder<K> guardBuilder;
  private final GuardSpec.Builder settings;
  private final @Nullable GuardSpec spec;
  private final boolean capacityGiven;
  private final ScanAwareTicker ticker;
  private final GuardEvictionListener<K, V> evictionListener;

  /** Set once a wrap got past its checks; a guard mirrors one cache. */
  private boolean wrapping;

  private volatile @Nullable CuckooGuard<K> guard;

  private CaffeineGuard(Builder<K, V> b) {
    this.name =
        b.name != null
            ? b.name
            : "CaffeineGuard@" + Integer.toHexString(System.identityHashCode(this));
    this.guardBuilder = b.guard;
    this.settings = b.settings;
    this.spec = b.spec;
    if (b.name == null) {
      guardBuilder.name(name);
    }
    this.capacityGiven = b.capacityGiven || b.spec != null;
    this.ticker = new ScanAwareTicker(b.ticker != null ? b.ticker : Ticker.systemTicker());
    this.evictionListener = new GuardEvictionListener<>(name, b.evictionListener);
  }

  /**
   * A builder for a guard of keys funnelled by {@code funnel}.
   *
   * @throws NullPointerException if {@code funnel} is null
   */
  public static <K, V> Builder<K, V> newBuilder(Funnel<? super K> funnel) {
    return new Builder<>(requireNonNull(funnel, "funnel"));
  }

  /**
   * Configures {@code builder} for this guard (its eviction listener and ticker) and builds the
   * guarded cache. Call once per guard.
   *
   * @throws IllegalArgumentException for a configuration the guard cannot keep exact (see the class
   *     comment); the builder is then left untouched
   * @throws IllegalStateException if this guard already guards a cache
   * @throws NullPointerException if {@code builder} is null
   */
  public Cache<K, V> wrap(Caffeine<? super K, ? super V> builder) {
    synchronized (this) {
      CacheKeySource<K> source = new CacheKeySource<>(ticker);
      CuckooGuard<K> g = newGuard(builder, false, source);
      Cache<K, V> raw = configure(builder).build();
      return new GuardedCache<>(raw, attach(raw, g, source));
    }
  }

  /**
   * Configures {@code builder} for this guard and builds a guarded loading cache around {@code
   * loader}. Call once per guard. Loads are never short-circuited: the loader may find a key the
   * cache does not hold.
   *
   * @throws IllegalArgumentException for a configuration the guard cannot keep exact (see the class
   *     comment); the builder is then left untouched
   * @throws IllegalStateException if this guard already guards a cache
   * @throws NullPointerException if {@code builder} or {@code loader} is null
   */
  public LoadingCache<K, V> wrap(
      Caffeine<? super K, ? super V> builder, CacheLoader<? super K, V> loader) {
    requireNonNull(loader, "loader");
    synchronized (this) {
      CacheKeySource<K> source = new CacheKeySource<>(ticker);
      CuckooGuard<K> g = newGuard(builder, true, source);
      LoadingCache<K, V> raw = configure(builder).build(new GuardedCacheLoader<>(loader));
      return new GuardedLoadingCache<>(raw, attach(raw, g, source), loader);
    }
  }

  /**
   * Refuses what cannot be guarded, then builds the guard, before the Caffeine builder is touched.
   * Its capacity: the given {@code expectedInsertions} or spec, else {@code maximumSize} plus an
   * eighth for the brief overshoot Caffeine allows.
   */
  private CuckooGuard<K> newGuard(
      Caffeine<? super K, ? super V> builder, boolean loading, CacheKeySource<K> source) {
    requireNonNull(builder, "builder");
    if (wrapping) {
      throw new IllegalStateException(
          "CaffeineGuard '"
              + name
              + "' already guards a cache (or a wrap of"
              + " one was refused after its settings were used); a guard mirrors exactly one cache, build one"
              + " guard per cache");
    }
    BuilderInspection inspection = new BuilderInspection(builder.toString());
    inspection.check(capacityGiven, loading);
    GuardSpec guardSpec = spec;
    if (guardSpec == null && capacityGiven) {
      guardSpec = settings.build();
    } else if (guardSpec == null) {
      long maximumSize = inspection.maximumSize().orElseThrow();
      long capacity =
          maximumSize > Long.MAX_VALUE / 9 * 8
              ? Long.MAX_VALUE
              : Math.max(1, maximumSize + maximumSize / 8);
      try {
        guardSpec = settings.expectedInsertions(capacity).build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "The cache's maximumSize ("
                + maximumSize
                + ") cannot size the filter: "
                + e.getMessage()
                + ". Set CaffeineGuard.newBuilder(funnel).expectedInsertions(n) to the number of"
                + " keys you expect the cache to hold",
            e);
      }
    }
    wrapping = true;
    return guardBuilder.spec(guardSpec).keySource(source).build();
  }

  /** Installs the guard's ticker and eviction listener. */
  private Caffeine<K, V> configure(Caffeine<? super K, ? super V> builder) {
    try {
      builder.ticker(ticker);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(
          "The Caffeine builder already has a ticker. The guard installs its"
              + " own, which wraps yours, so that a rebuild also sees entries that expired but are not yet"
              + " evicted: pass yours to CaffeineGuard.newBuilder(funnel).ticker(ticker) and remove it from"
              + " the Caffeine builder",
          e);
    }
    return builder.evictionListener(evictionListener);
  }

  /** Connects the built cache and its guard. */
  private GuardedWrites<K, V> attach(Cache<K, V> raw, CuckooGuard<K> g, CacheKeySource<K> source) {
    source.attach(raw);
    evictionListener.attach(g);
    guard = g;
    return new GuardedWrites<>(raw, g);
  }

  private CuckooGuard<K> guard() {
    CuckooGuard<K> g = guard;
    if (g == null) {
      throw new IllegalStateException(
          "CaffeineGuard '" + name + "' guards no cache yet: call wrap(builder)" + " first");
    }
    return g;
  }

  /**
   * False if {@code key} is definitely not in the cache; true if it is, or (with about the
   * configured fpp) if it is not; always true while pass-through is on. For code that routes around
   * the cache, e.g. an edge deciding between a peer and the origin. Lock-free; counts a lookup in
   * {@link #stats()}.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalStateException before {@link #wrap}
   */
  public boolean mightContain(K key) {
    return guard().mightContain(key);
  }

  /**
   * Reports that {@code key} answered "might contain" but was not in the cache; feeds the observed
   * fpp in {@link #stats()} and the drift trigger of rebuilds. Call it after a {@link
   * #mightContain} that let a lookup around the cache through and the cache turned out not to hold
   * the key. (The guarded cache's own {@code getIfPresent} feeds a sample of its misses itself.)
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalStateException before {@link #wrap}
   */
  public void reportFalsePositive(K key) {
    guard().reportFalsePositive(key);
  }

  /**
   * Declares that the cache may hold keys the filter missed (there is no such path in the guarded
   * cache; this is for the unforeseen): pass-through on until a rebuild completes.
   *
   * @throws NullPointerException if {@code reason} is null
   * @throws IllegalStateException before {@link #wrap}
   */
  public void markStale(String reason) {
    guard().markStale(reason);
  }

  /**
   * Rebuilds the filter from the cache's keys now (or right after a running rebuild), clearing
   * leaked fingerprints and resizing it.
   *
   * @return completes when the rebuilt filter is in use, or exceptionally with the failure
   * @throws IllegalStateException before {@link #wrap}
   */
  public CompletableFuture<Void> rebuild() {
    return guard().rebuild();
  }

  /**
   * Whether {@link #mightContain} currently answers true for every key (after an insert failed,
   * until a rebuild completes).
   *
   * @throws IllegalStateException before {@link #wrap}
   */
  public boolean isPassThrough() {
    return guard().isPassThrough();
  }

  /**
   * Counters of the guard: lookups (calls of {@link #mightContain}, plus the sampled misses of the
   * cache's {@code getIfPresent}/{@code getAllPresent}), definite misses, reported false positives,
   * size, load, memory, rebuilds, pass-through. Lock-free.
   *
   * @throws IllegalStateException before {@link #wrap}
   */
  public GuardStats stats() {
    return guard().stats();
  }

  /** Enters and leaves begun and not yet ended (for tests: zero whenever no write runs). */
  long writesInFlight() {
    return guard().inFlight();
  }

  /** The name given to the builder, or a generated one; used in log lines and messages. */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    CuckooGuard<K> g = guard;
    return "CaffeineGuard[" + name + (g == null ? ", not wrapped]" : ", " + g.stats() + "]");
  }

  /**
   * Builds a {@link CaffeineGuard}. The guard's filter and rebuild settings are a {@link
   * GuardSpec}: given whole with {@link #spec}, or one by one with the setters of the same names
   * (meaning, defaults and checks are {@link GuardSpec.Builder}'s: each validated at once, each
   * settable once, and not together with a spec). The rest belong to the cache. Not thread-safe.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  public static final class Builder<K, V> {
    private final CuckooGuard.Builder<K> guard;
    private final GuardSpec.Builder settings = GuardSpec.newBuilder();
    private boolean settingsTouched;
    private @Nullable GuardSpec spec;
    private boolean capacityGiven;
    private @Nullable String name;
    private @Nullable Ticker ticker;
    private @Nullable RemovalListener<? super K, ? super V> evictionListener;
    private boolean built;

    private Builder(Funnel<? super K> funnel) {
      this.guard = CuckooGuard.newBuilder(funnel);
    }

    private GuardSpec.Builder settings() {
      if (spec != null) {
        throw new IllegalStateException("the settings were already given as a spec (" + spec + ")");
      }
      settingsTouched = true;
      return settings;
    }

    /**
     * All filter and rebuild settings at once, e.g. from {@link GuardSpec#parse}. The spec's {@code
     * expectedInsertions} sizes the guard (its default {@value
     * AbstractFilterBuilder#DEFAULT_EXPECTED_INSERTIONS} if the spec does not set it): a guard
     * given a spec is not sized from the cache's {@code maximumSize}.
     *
     * @throws IllegalStateException if a spec or a single setting was already set
     * @throws NullPointerException if {@code spec} is null
     */
    public Builder<K, V> spec(GuardSpec spec) {
      if (this.spec != null || settingsTouched) {
        throw new IllegalStateException(
            "spec was already set to "
                + (this.spec != null ? this.spec : "single settings (expectedInsertions, fpp, ...)")
                + "; give the settings one way");
      }
      this.spec = requireNonNull(spec, "spec");
      return this;
    }

    /**
     * Keys the guard holds without a rebuild (see {@link GuardSpec.Builder#expectedInsertions}).
     * Optional for a cache with {@code maximumSize}: then {@code maximumSize} plus an eighth for
     * the brief overshoot Caffeine allows, so that a full cache stays below the rebuild load
     * threshold. Required for a weight-bounded or unbounded cache.
     *
     * @throws IllegalArgumentException if out of range
     * @throws IllegalStateException if already set, or a spec is set
     * @see GuardSpec.Builder#expectedInsertions
     */
    public Builder<K, V> expectedInsertions(long expectedInsertions) {
      settings().expectedInsertions(expectedInsertions);
      capacityGiven = true;
      return this;
    }

    /**
     * Target false-positive probability (default {@value AbstractFilterBuilder#DEFAULT_FPP}).
     * Exclusive with {@link #fingerprintBits}.
     *
     * @throws IllegalArgumentException if not in (0, 1) or below what 16-bit fingerprints reach
     * @throws IllegalStateException if already set, fingerprintBits is set, or a spec is set
     * @see GuardSpec.Builder#fpp
     */
    public Builder<K, V> fpp(double fpp) {
      settings().fpp(fpp);
      return this;
    }

    /**
     * Fingerprint width in bits instead of {@link #fpp}.
     *
     * @throws IllegalArgumentException if out of the filter's range
     * @throws IllegalStateException if already set, fpp is set, or a spec is set
     * @see GuardSpec.Builder#fingerprintBits
     */
    public Builder<K, V> fingerprintBits(int fingerprintBits) {
      settings().fingerprintBits(fingerprintBits);
      return this;
    }

    /**
     * Growth of the first filter when full (default {@value
     * AbstractFilterBuilder#DEFAULT_EXPANSION}); with 0 a full filter switches the guard to
     * pass-through until a rebuild.
     *
     * @throws IllegalArgumentException if negative or out of the filter's range
     * @throws IllegalStateException if already set, or a spec is set
     * @see GuardSpec.Builder#expansion
     */
    public Builder<K, V> expansion(int expansion) {
      settings().expansion(expansion);
      return this;
    }

    /**
     * Hash seed of every filter of the guard (default: a random one per filter), e.g. for
     * reproducible tests.
     *
     * @throws IllegalStateException if already set, or a spec is set
     * @see GuardSpec.Builder#seed
     */
    public Builder<K, V> seed(long seed) {
      settings().seed(seed);
      return this;
    }

    /**
     * Load factor above which a rebuild starts (default {@value
     * io.github.cuckooguard.GuardSpec#DEFAULT_REBUILD_LOAD_THRESHOLD}).
     *
     * @throws IllegalArgumentException if not in (0, 1]
     * @throws IllegalStateException if already set, or a spec is set
     * @see GuardSpec.Builder#rebuildLoadThreshold
     */
    public Builder<K, V> rebuildLoadThreshold(double threshold) {
      settings().rebuildLoadThreshold(threshold);
      return this;
    }

    /**
     * Multiple of the target fpp the observed fpp must exceed to start a rebuild (default {@value
     * io.github.cuckooguard.GuardSpec#DEFAULT_FPP_DRIFT_FACTOR}).
     *
     * @throws IllegalArgumentException if not greater than 1
     * @throws IllegalStateException if already set, or a spec is set
     * @see GuardSpec.Builder#fppDriftFactor
     */
    public Builder<K, V> fppDriftFactor(double factor) {
      settings().fppDriftFactor(factor);
      return this;
    }

    /**
     * Runs rebuilds (default {@link java.util.concurrent.ForkJoinPool#commonPool()}). It should not
     * run them on the calling thread: a rebuild is requested by an enter, and one run there would
     * scan the whole cache while the writing thread holds Caffeine's lock of the key it writes
     * ({@code Runnable::run} is fine in tests).
     *
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#executor
     */
    public Builder<K, V> executor(Executor executor) {
      guard.executor(executor);
      return this;
    }

    /**
     * Adds a callback on rebuild start, progress, finish and failure.
     *
     * @throws NullPointerException if {@code listener} is null
     * @see CuckooGuard.Builder#addListener
     */
    public Builder<K, V> addListener(RebuildListener listener) {
      guard.addListener(listener);
      return this;
    }

    /**
     * A name for log lines and messages (default: generated).
     *
     * @throws IllegalArgumentException if blank
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#name
     */
    public Builder<K, V> name(String name) {
      guard.name(name);
      this.name = name;
      return this;
    }

    /**
     * The cache's time source (default {@link Ticker#systemTicker()}), e.g. a fake ticker in tests.
     * Set it here, not on the Caffeine builder: the guard installs a ticker wrapping it.
     *
     * @throws IllegalStateException if already set
     * @throws NullPointerException if {@code ticker} is null
     */
    public Builder<K, V> ticker(Ticker ticker) {
      if (this.ticker != null) {
        throw new IllegalStateException("ticker was already set to " + this.ticker);
      }
      this.ticker = requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Your eviction listener, called after the guard's inside Caffeine's atomic removal (same rules
     * as Caffeine's: quick, must not modify the cache). An exception from it is logged and does not
     * affect the guard. Set it here, not on the Caffeine builder.
     *
     * @throws IllegalStateException if already set
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder<K, V> evictionListener(RemovalListener<? super K, ? super V> listener) {
      if (this.evictionListener != null) {
        throw new IllegalStateException(
            "evictionListener was already set to " + this.evictionListener);
      }
      this.evictionListener = requireNonNull(listener, "listener");
      return this;
    }

    /**
     * A guard ready to {@link CaffeineGuard#wrap} one cache.
     *
     * @throws IllegalStateException if called a second time: a builder makes one guard
     */
    public CaffeineGuard<K, V> build() {
      if (built) {
        throw new IllegalStateException(
            "build() was already called; a CaffeineGuard.Builder makes one guard");
      }
      built = true;
      return new CaffeineGuard<>(this);
    }
  }
}
