package io.github.cuckooguard.caffeine;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.RemovalListener;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.cuckooguard.CuckooFilter;
import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardStats;
import io.github.cuckooguard.RebuildListener;
import io.github.cuckooguard.caffeine.internal.BuilderInspection;
import io.github.cuckooguard.caffeine.internal.CacheKeySource;
import io.github.cuckooguard.caffeine.internal.GuardEvictionListener;
import io.github.cuckooguard.caffeine.internal.GuardedCache;
import io.github.cuckooguard.caffeine.internal.GuardedCacheLoader;
import io.github.cuckooguard.caffeine.internal.GuardedLoadingCache;
import io.github.cuckooguard.caffeine.internal.GuardedWrites;
import io.github.cuckooguard.caffeine.internal.InFlightWrites;
import io.github.cuckooguard.caffeine.internal.ScanAwareTicker;
import io.github.cuckooguard.caffeine.internal.SyntheticStats;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A cuckoo filter that mirrors the keys of one Caffeine cache, and the guarded cache itself:
 * {@link #mightContain} answers {@code false} only for a key that is definitely not in the cache,
 * so callers (and the cache's own {@code getIfPresent}) can skip work for it.
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
 * <ul>
 *   <li>Every write path keeps the filter exact: {@code put}, {@code putAll}, {@code get(k, fn)},
 *       {@code getAll}, loads, and {@code asMap()} with its {@code put*}, {@code compute*},
 *       {@code merge}, {@code replace*}, {@code remove}, and its key, value and entry views and
 *       their iterators ({@code remove}, {@code setValue}), and {@code policy().expireVariably()}
 *       writes. A key enters inside the per-key compute that creates its entry; a replace is not
 *       an enter; a removal leaves inside the compute that removes it; an eviction leaves in the
 *       eviction listener. {@code invalidateAll()} removes key by key.
 *   <li>{@code getIfPresent} and {@code getAllPresent} answer definite misses without touching the
 *       cache (they count in {@link #stats()}, not in the cache's own statistics). Loads
 *       ({@code get}, {@code getAll}, {@code LoadingCache.get}) never short-circuit.
 *   <li>Paths that cannot be exact are made safe: a refresh whose reload returns null removes the
 *       entry without an event, leaking its fingerprint (a false positive) until the next rebuild.
 *       Leaks never cause false negatives; the guard's rebuild clears them.
 *   <li>The removal listener is never used by the guard (it is asynchronous and unordered).
 * </ul>
 * Documented differences from plain Caffeine: with {@code recordStats()}, a bulk load counts one
 * load per stored entry; {@code LoadingCache.refresh} of an absent key loads on the calling thread;
 * a refresh that races with the removal of its key yields null; statistics of the stand-in
 * computes are subtracted, leaving at most nanoseconds of load time per write.
 *
 * <p><b>Refused configurations</b> (an {@link IllegalArgumentException} saying why and what to do):
 * {@code weakKeys()}, {@code weakValues()}, {@code softValues()}, an eviction listener or ticker set
 * on the Caffeine builder, and a cache that is not size-bounded when
 * {@link Builder#expectedInsertions} is not set. There is no asynchronous variant: an
 * {@code AsyncCache} publishes an entry before its value exists.
 *
 * <p><b>Rebuilds</b> read the cache's keys (see {@link CuckooGuard}); they need an executor that
 * does not run them on the calling thread (the default does).
 *
 * <p>Thread safety: every method may be called from any thread.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class CaffeineGuard<K, V> {

  private final String name;
  private final Funnel<? super K> funnel;
  private final CuckooGuard.Builder<K> guardBuilder;
  private final boolean capacityGiven;
  private final ScanAwareTicker ticker;
  private final GuardEvictionListener<K, V> evictionListener;
  /** Set once a wrap got past its checks; a guard mirrors one cache. */
  private boolean wrapping;
  private volatile @Nullable CuckooGuard<K> guard;

  private CaffeineGuard(Builder<K, V> b) {
    this.name = b.name != null ? b.name : "CaffeineGuard@" + Integer.toHexString(System.identityHashCode(this));
    this.funnel = b.funnel;
    this.guardBuilder = b.guard;
    if (b.name == null) {
      guardBuilder.name(name);
    }
    this.capacityGiven = b.capacityGiven;
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
   * @throws IllegalArgumentException for a configuration the guard cannot keep exact (see the
   *     class comment); the builder is then left untouched
   * @throws IllegalStateException if this guard already guards a cache
   * @throws NullPointerException if {@code builder} is null
   */
  public Cache<K, V> wrap(Caffeine<? super K, ? super V> builder) {
    synchronized (this) {
      long capacity = check(builder, false);
      Cache<K, V> raw = configure(builder).build();
      return new GuardedCache<>(raw, attach(raw, capacity, null));
    }
  }

  /**
   * Configures {@code builder} for this guard and builds a guarded loading cache around
   * {@code loader}. Call once per guard. Loads are never short-circuited: the loader may find a
   * key the cache does not hold.
   *
   * @throws IllegalArgumentException for a configuration the guard cannot keep exact (see the
   *     class comment); the builder is then left untouched
   * @throws IllegalStateException if this guard already guards a cache
   * @throws NullPointerException if {@code builder} or {@code loader} is null
   */
  public LoadingCache<K, V> wrap(Caffeine<? super K, ? super V> builder, CacheLoader<? super K, V> loader) {
    requireNonNull(loader, "loader");
    synchronized (this) {
      long capacity = check(builder, true);
      GuardedCacheLoader<K, V> guardedLoader = new GuardedCacheLoader<>(loader);
      LoadingCache<K, V> raw = configure(builder).build(guardedLoader);
      return new GuardedLoadingCache<>(raw, attach(raw, capacity, guardedLoader), loader);
    }
  }

  /** Refuses what cannot be guarded; returns the filter capacity, or -1 if configured. */
  private long check(Caffeine<? super K, ? super V> builder, boolean loading) {
    requireNonNull(builder, "builder");
    if (wrapping) {
      throw new IllegalStateException("CaffeineGuard '" + name + "' already guards a cache (or a wrap of"
          + " one failed after configuring its builder); a guard mirrors exactly one cache, build one"
          + " guard per cache");
    }
    BuilderInspection inspection = new BuilderInspection(builder.toString());
    inspection.check(capacityGiven, loading);
    if (capacityGiven) {
      return -1;
    }
    long maximumSize = inspection.maximumSize().orElseThrow();
    long capacity = maximumSize > Long.MAX_VALUE / 9 * 8 ? Long.MAX_VALUE : Math.max(1, maximumSize + maximumSize / 8);
    try {
      CuckooFilter.newBuilder(funnel).expectedInsertions(capacity);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("The cache's maximumSize (" + maximumSize + ") cannot size the filter: "
          + e.getMessage() + ". Set CaffeineGuard.newBuilder(funnel).expectedInsertions(n) to the number of"
          + " keys you expect the cache to hold", e);
    }
    return capacity;
  }

  /** Installs the guard's ticker and eviction listener. */
  private Caffeine<K, V> configure(Caffeine<? super K, ? super V> builder) {
    try {
      builder.ticker(ticker);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException("The Caffeine builder already has a ticker. The guard installs its"
          + " own, which wraps yours, so that a rebuild also sees entries that expired but are not yet"
          + " evicted: pass yours to CaffeineGuard.newBuilder(funnel).ticker(ticker) and remove it from"
          + " the Caffeine builder", e);
    }
    wrapping = true;
    return builder.evictionListener(evictionListener);
  }

  private GuardedWrites<K, V> attach(Cache<K, V> raw, long capacity, @Nullable GuardedCacheLoader<K, V> loader) {
    if (capacity > 0) {
      guardBuilder.expectedInsertions(capacity);
    }
    InFlightWrites inFlight = new InFlightWrites();
    CuckooGuard<K> g = guardBuilder.keySource(new CacheKeySource<>(raw, ticker, inFlight)).build();
    GuardedWrites<K, V> writes = new GuardedWrites<>(raw, g, inFlight,
        new SyntheticStats(raw.policy().isRecordingStats()));
    evictionListener.attach(g);
    if (loader != null) {
      loader.attach(g);
    }
    guard = g;
    return writes;
  }

  private CuckooGuard<K> guard() {
    CuckooGuard<K> g = guard;
    if (g == null) {
      throw new IllegalStateException("CaffeineGuard '" + name + "' guards no cache yet: call wrap(builder)"
          + " first");
    }
    return g;
  }

  /**
   * False if {@code key} is definitely not in the cache; true if it is, or (with about the
   * configured fpp) if it is not; always true while pass-through is on. For code that routes
   * around the cache, e.g. an edge deciding between a peer and the origin. Lock-free; counts a
   * lookup in {@link #stats()}.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalStateException before {@link #wrap}
   */
  public boolean mightContain(K key) {
    return guard().mightContain(key);
  }

  /**
   * Reports that {@code key} answered "might contain" but was not in the cache; feeds the
   * observed fpp in {@link #stats()} and the drift trigger of rebuilds. The guarded cache reports
   * its own {@code getIfPresent} misses; call this for lookups that route around the cache.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalStateException before {@link #wrap}
   */
  public void reportFalsePositive(K key) {
    guard().reportFalsePositive(key);
  }

  /**
   * Declares that the cache may hold keys the filter missed (there is no such path in the
   * guarded cache; this is for the unforeseen): pass-through on until a rebuild completes.
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
   * Counters of the guard: lookups, definite misses (short-circuits), reported false positives,
   * size, load, memory, rebuilds, pass-through. Lock-free.
   *
   * @throws IllegalStateException before {@link #wrap}
   */
  public GuardStats stats() {
    return guard().stats();
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
   * Builds a {@link CaffeineGuard}. Filter and rebuild settings have the meaning, defaults and
   * checks of {@link CuckooGuard.Builder} (each validated at once, each settable once); the rest
   * belong to the cache. Not thread-safe.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  public static final class Builder<K, V> {
    private final Funnel<? super K> funnel;
    private final CuckooGuard.Builder<K> guard;
    private boolean capacityGiven;
    private @Nullable String name;
    private @Nullable Ticker ticker;
    private @Nullable RemovalListener<? super K, ? super V> evictionListener;
    private boolean built;

    private Builder(Funnel<? super K> funnel) {
      this.funnel = funnel;
      this.guard = CuckooGuard.newBuilder(funnel);
    }

    /**
     * Keys the guard holds without a rebuild (see {@link CuckooGuard.Builder#expectedInsertions}).
     * Optional for a cache with {@code maximumSize}: then {@code maximumSize × 1.125}, the extra
     * eighth for the brief overshoot Caffeine allows, so that a full cache stays below the rebuild
     * load threshold. Required for a weight-bounded or unbounded cache.
     *
     * @throws IllegalArgumentException if not in [1, 2<sup>40</sup>]
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#expectedInsertions
     */
    public Builder<K, V> expectedInsertions(long expectedInsertions) {
      guard.expectedInsertions(expectedInsertions);
      capacityGiven = true;
      return this;
    }

    /**
     * Target false-positive probability (default 0.01). Exclusive with {@link #fingerprintBits}.
     *
     * @throws IllegalArgumentException if not in (0, 1) or below what 16-bit fingerprints reach
     * @throws IllegalStateException if already set, or fingerprintBits is set
     * @see CuckooGuard.Builder#fpp
     */
    public Builder<K, V> fpp(double fpp) {
      guard.fpp(fpp);
      return this;
    }

    /**
     * Fingerprint width in bits instead of {@link #fpp}.
     *
     * @throws IllegalArgumentException if not in [4, 16]
     * @throws IllegalStateException if already set, or fpp is set
     * @see CuckooGuard.Builder#fingerprintBits
     */
    public Builder<K, V> fingerprintBits(int fingerprintBits) {
      guard.fingerprintBits(fingerprintBits);
      return this;
    }

    /**
     * Growth of the first filter when full (default 1); with 0 a full filter switches the guard
     * to pass-through until a rebuild.
     *
     * @throws IllegalArgumentException if negative or out of the filter's range
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#expansion
     */
    public Builder<K, V> expansion(int expansion) {
      guard.expansion(expansion);
      return this;
    }

    /**
     * Hash seed of every filter of the guard (default: a random one per filter), e.g. for
     * reproducible tests.
     *
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#seed
     */
    public Builder<K, V> seed(long seed) {
      guard.seed(seed);
      return this;
    }

    /**
     * Runs rebuilds (default {@link java.util.concurrent.ForkJoinPool#commonPool()}); must not run
     * them on the calling thread (a rebuild requested from inside a cache write then fails safely:
     * pass-through until a later rebuild). A rebuild first waits for the cache writes and loads in
     * flight, so never wait for a rebuild from inside a loader or compute function.
     *
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#executor
     */
    public Builder<K, V> executor(Executor executor) {
      guard.executor(executor);
      return this;
    }

    /**
     * Load factor above which a rebuild starts (default
     * {@value io.github.cuckooguard.GuardSpec#DEFAULT_REBUILD_LOAD_THRESHOLD}).
     *
     * @throws IllegalArgumentException if not in (0, 1]
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#rebuildLoadThreshold
     */
    public Builder<K, V> rebuildLoadThreshold(double threshold) {
      guard.rebuildLoadThreshold(threshold);
      return this;
    }

    /**
     * Multiple of the target fpp the observed fpp must exceed to start a rebuild (default
     * {@value io.github.cuckooguard.GuardSpec#DEFAULT_FPP_DRIFT_FACTOR}).
     *
     * @throws IllegalArgumentException if not greater than 1
     * @throws IllegalStateException if already set
     * @see CuckooGuard.Builder#fppDriftFactor
     */
    public Builder<K, V> fppDriftFactor(double factor) {
      guard.fppDriftFactor(factor);
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
     * The cache's time source (default {@link Ticker#systemTicker()}), e.g. a fake ticker in
     * tests. Set it here, not on the Caffeine builder: the guard installs a ticker wrapping it.
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
     * Your eviction listener, called after the guard's inside Caffeine's atomic removal (same
     * rules as Caffeine's: quick, must not modify the cache). An exception from it is logged and
     * does not affect the guard. Set it here, not on the Caffeine builder.
     *
     * @throws IllegalStateException if already set
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder<K, V> evictionListener(RemovalListener<? super K, ? super V> listener) {
      if (this.evictionListener != null) {
        throw new IllegalStateException("evictionListener was already set to " + this.evictionListener);
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
        throw new IllegalStateException("build() was already called; a CaffeineGuard.Builder makes one guard");
      }
      built = true;
      return new CaffeineGuard<>(this);
    }
  }
}
