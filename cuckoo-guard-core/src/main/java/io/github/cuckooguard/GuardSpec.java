package io.github.cuckooguard;

import io.github.cuckooguard.internal.Sizing;
import io.github.cuckooguard.internal.guard.FilterSpec;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a {@link CuckooGuard}'s filters and rebuild triggers, immutable once built. One
 * model for every adapter: the filter settings have the meaning and defaults of {@link
 * AbstractFilterBuilder}, and adapters that read properties parse them with {@link #parse}, in the
 * manner of Caffeine's {@code CaffeineSpec}.
 *
 * <p>Capacity has one name and one meaning everywhere: {@code expectedInsertions} is the number of
 * keys the structure holds without needing more room. For a filter that is the number it holds
 * without growing; for a guard, the number of tracked keys it holds without a rebuild (its filters
 * are sized so that this many keys stay below the {@linkplain #rebuildLoadThreshold rebuild load
 * threshold}).
 *
 * <pre>{@code
 * GuardSpec spec = GuardSpec.newBuilder().expectedInsertions(1_000_000).fpp(0.001).build();
 * GuardSpec same = GuardSpec.parse(Map.of("app.guard.expected-insertions", "1000000",
 *     "app.guard.fpp", "0.001"), "app.guard.", Set.of());
 * }</pre>
 */
public final class GuardSpec {

  /** Load factor above which a rebuild starts, unless set. */
  public static final double DEFAULT_REBUILD_LOAD_THRESHOLD = 0.85;

  /**
   * Multiple of the target fpp that the observed fpp must exceed to start a rebuild, unless set.
   */
  public static final double DEFAULT_FPP_DRIFT_FACTOR = 3.0;

  /**
   * Property names {@link #parse} reads, after the prefix (kebab-case; snake_case and camelCase are
   * read too).
   */
  public static final Set<String> PROPERTY_NAMES =
      Set.of(
          "expected-insertions",
          "fpp",
          "fingerprint-bits",
          "expansion",
          "semi-sorted",
          "seed",
          "rebuild-load-threshold",
          "fpp-drift-factor");

  private static final Set<String> CANONICAL_NAMES =
      Set.of(
          "expectedinsertions",
          "fpp",
          "fingerprintbits",
          "expansion",
          "semisorted",
          "seed",
          "rebuildloadthreshold",
          "fppdriftfactor");

  private static final GuardSpec DEFAULTS = newBuilder().build();

  private final long expectedInsertions;
  private final double fpp;
  private final int fingerprintBits;
  private final int expansion;
  private final boolean semiSorted;
  private final @Nullable Long seed;
  private final double rebuildLoadThreshold;
  private final double fppDriftFactor;

  private GuardSpec(Builder b) {
    this.expectedInsertions =
        b.expectedInsertions > 0
            ? b.expectedInsertions
            : AbstractFilterBuilder.DEFAULT_EXPECTED_INSERTIONS;
    this.fpp = b.fpp;
    this.fingerprintBits = b.fingerprintBits;
    this.expansion = b.expansion >= 0 ? b.expansion : AbstractFilterBuilder.DEFAULT_EXPANSION;
    this.semiSorted = b.semiSorted;
    this.seed = b.seed;
    this.rebuildLoadThreshold =
        Double.isNaN(b.loadThreshold) ? DEFAULT_REBUILD_LOAD_THRESHOLD : b.loadThreshold;
    this.fppDriftFactor = Double.isNaN(b.driftFactor) ? DEFAULT_FPP_DRIFT_FACTOR : b.driftFactor;
  }

  /** A builder with every setting unset (the defaults). */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The defaults of every setting. */
  public static GuardSpec defaults() {
    return DEFAULTS;
  }

  /**
   * Reads the settings named {@link #PROPERTY_NAMES} under {@code prefix} from {@code properties}
   * (values as strings or numbers); unset ones keep their defaults. Every other key under the
   * prefix must be one of {@code adapterNames} (the adapter's own settings, after the prefix), so
   * that a misspelled key fails at startup instead of being ignored.
   *
   * @param prefix e.g. {@code "hibernate.cuckoo."}; keys not starting with it are ignored
   * @param adapterNames names the caller reads itself; matched like {@link #PROPERTY_NAMES}
   * @throws IllegalArgumentException naming the key, the value and the accepted range if a value is
   *     malformed or out of range, or a key under the prefix is unknown (with the accepted names)
   */
  public static GuardSpec parse(
      Map<String, ?> properties, String prefix, Set<String> adapterNames) {
    Objects.requireNonNull(properties, "properties");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(adapterNames, "adapterNames");
    Set<String> adapter = new LinkedHashSet<>();
    for (String n : adapterNames) {
      adapter.add(canonical(n));
    }
    Builder b = newBuilder();
    for (Map.Entry<String, ?> e : properties.entrySet()) {
      String key = e.getKey();
      if (key == null || !key.startsWith(prefix) || e.getValue() == null) {
        continue;
      }
      String name = key.substring(prefix.length());
      String c = canonical(name);
      if (adapter.contains(c)) {
        continue;
      }
      String value = e.getValue().toString().trim();
      if (!CANONICAL_NAMES.contains(c)) {
        Set<String> accepted = new TreeSet<>(PROPERTY_NAMES);
        accepted.addAll(adapterNames);
        throw new IllegalArgumentException(
            "unknown setting "
                + key
                + "="
                + value
                + "; the settings under "
                + prefix
                + " are "
                + accepted);
      }
      try {
        switch (c) {
          case "expectedinsertions" -> b.expectedInsertions(Long.parseLong(value.replace("_", "")));
          case "fpp" -> b.fpp(Double.parseDouble(value));
          case "fingerprintbits" -> b.fingerprintBits(Integer.parseInt(value));
          case "expansion" -> b.expansion(Integer.parseInt(value));
          case "semisorted" -> {
            if (value.equalsIgnoreCase("true")) {
              b.semiSorted();
            } else if (!value.equalsIgnoreCase("false")) {
              throw new IllegalArgumentException(key + "=" + value + " must be true or false");
            }
          }
          case "seed" -> b.seed(Long.parseLong(value));
          case "rebuildloadthreshold" -> b.rebuildLoadThreshold(Double.parseDouble(value));
          default ->
              b.fppDriftFactor(Double.parseDouble(value)); // "fppdriftfactor", the one name left
        }
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException(key + " (" + value + ") is not a number", ex);
      } catch (IllegalArgumentException | IllegalStateException ex) {
        throw new IllegalArgumentException(key + ": " + ex.getMessage(), ex);
      }
    }
    return b.build();
  }

  private static String canonical(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  /** Tracked keys the guard holds without a rebuild. */
  public long expectedInsertions() {
    return expectedInsertions;
  }

  /** The configured fpp, or a negative value if {@link #fingerprintBits()} is set or neither is. */
  public double fpp() {
    return fpp;
  }

  /** The configured fingerprint width, or a negative value if not set. */
  public int fingerprintBits() {
    return fingerprintBits;
  }

  /** Growth of the first filter when full. */
  public int expansion() {
    return expansion;
  }

  /** True if the filters store their buckets semi-sorted ({@link Builder#semiSorted}). */
  public boolean semiSorted() {
    return semiSorted;
  }

  /** The hash seed of every filter, or null to draw a random one per filter. */
  public @Nullable Long seed() {
    return seed;
  }

  /** Load factor above which a rebuild starts. */
  public double rebuildLoadThreshold() {
    return rebuildLoadThreshold;
  }

  /** Multiple of the target fpp above which the observed fpp starts a rebuild. */
  public double fppDriftFactor() {
    return fppDriftFactor;
  }

  /**
   * The false-positive probability the filters aim at: the fpp, or that of the fingerprint width.
   */
  public double targetFpp() {
    if (fpp > 0) {
      return fpp;
    }
    if (fingerprintBits > 0) {
      return Sizing.fppAtDesignLoad(fingerprintBits, AbstractFilterBuilder.DEFAULT_BUCKET_SIZE);
    }
    return AbstractFilterBuilder.DEFAULT_FPP;
  }

  /** The largest {@code expectedInsertions} a guard accepts at the given rebuild load threshold. */
  static long maxExpectedInsertions(double loadThreshold) {
    return (long)
        Math.floor(
            AbstractFilterBuilder.MAX_EXPECTED_INSERTIONS / FilterSpec.headroom(loadThreshold));
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof GuardSpec g
        && g.expectedInsertions == expectedInsertions
        && Double.compare(g.fpp, fpp) == 0
        && g.fingerprintBits == fingerprintBits
        && g.expansion == expansion
        && g.semiSorted == semiSorted
        && Objects.equals(g.seed, seed)
        && Double.compare(g.rebuildLoadThreshold, rebuildLoadThreshold) == 0
        && Double.compare(g.fppDriftFactor, fppDriftFactor) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        expectedInsertions,
        fpp,
        fingerprintBits,
        expansion,
        semiSorted,
        seed,
        rebuildLoadThreshold,
        fppDriftFactor);
  }

  @Override
  public String toString() {
    return "GuardSpec[expectedInsertions="
        + expectedInsertions
        + (fpp > 0 ? ", fpp=" + fpp : "")
        + (fingerprintBits > 0 ? ", fingerprintBits=" + fingerprintBits : "")
        + ", expansion="
        + expansion
        + (semiSorted ? ", semiSorted" : "")
        + (seed != null ? ", seed=" + seed : "")
        + ", rebuildLoadThreshold="
        + rebuildLoadThreshold
        + ", fppDriftFactor="
        + fppDriftFactor
        + "]";
  }

  /**
   * Builds {@link GuardSpec}s. Each setter checks its value at once and may be called only once;
   * messages name the bad value and the accepted range. Not thread-safe.
   */
  public static final class Builder {
    /** Validates the filter settings with the filter builder's own checks and messages. */
    private final CuckooFilter.Builder<Object> probe = CuckooFilter.newBuilder((key, sink) -> {});

    private long expectedInsertions = -1;
    private double fpp = -1;
    private int fingerprintBits = -1;
    private int expansion = -1;
    private boolean semiSorted;
    private @Nullable Long seed;
    private double loadThreshold = Double.NaN;
    private double driftFactor = Double.NaN;

    private Builder() {}

    /**
     * Tracked keys the guard holds without a rebuild. Default {@value
     * AbstractFilterBuilder#DEFAULT_EXPECTED_INSERTIONS}.
     *
     * @param expectedInsertions at least 1; at most about 2^40 × threshold / 0.95 (checked at
     *     {@link #build()}, where the threshold is known)
     */
    public Builder expectedInsertions(long expectedInsertions) {
      probe.expectedInsertions(expectedInsertions);
      this.expectedInsertions = expectedInsertions;
      return this;
    }

    /**
     * Target false-positive probability, also the base of the drift trigger. Exclusive with {@link
     * #fingerprintBits}. Default {@value AbstractFilterBuilder#DEFAULT_FPP}.
     *
     * @see AbstractFilterBuilder#fpp
     */
    public Builder fpp(double fpp) {
      probe.fpp(fpp);
      this.fpp = fpp;
      return this;
    }

    /**
     * Fingerprint width instead of {@link #fpp}; the drift trigger then aims at the fpp of a full
     * filter of that width.
     *
     * @see AbstractFilterBuilder#fingerprintBits
     */
    public Builder fingerprintBits(int fingerprintBits) {
      probe.fingerprintBits(fingerprintBits);
      this.fingerprintBits = fingerprintBits;
      return this;
    }

    /**
     * Growth of the first filter when full (default {@value
     * AbstractFilterBuilder#DEFAULT_EXPANSION}). With 0 a full filter makes inserts fail, which
     * switches the guard to pass-through until a rebuild. Rebuilt filters use at least 2, so that a
     * rebuild cannot run out of room.
     *
     * @see AbstractFilterBuilder#expansion
     */
    public Builder expansion(int expansion) {
      probe.expansion(expansion);
      this.expansion = expansion;
      return this;
    }

    /**
     * Every filter of the guard, the first and each rebuilt one, stores its buckets semi-sorted:
     * one bit less per slot for the same fpp, at some lookup cost (property {@code semi-sorted},
     * {@code true} or {@code false}).
     *
     * @see AbstractFilterBuilder#semiSorted
     */
    public Builder semiSorted() {
      probe.semiSorted();
      this.semiSorted = true;
      return this;
    }

    /** Hash seed of every filter of the guard; by default each filter draws a random one. */
    public Builder seed(long seed) {
      probe.seed(seed);
      this.seed = seed;
      return this;
    }

    /**
     * Load factor above which a rebuild starts (default {@value
     * GuardSpec#DEFAULT_REBUILD_LOAD_THRESHOLD}). Ignored without a key source.
     *
     * @param threshold in (0, 1]; a 4-slot filter fills to about 0.95, so values above that only
     *     rebuild when the filter had to grow or an insert failed
     */
    public Builder rebuildLoadThreshold(double threshold) {
      if (!Double.isNaN(this.loadThreshold)) {
        throw new IllegalStateException(
            "rebuildLoadThreshold was already set to " + this.loadThreshold);
      }
      if (!(threshold > 0 && threshold <= 1)) {
        throw new IllegalArgumentException(
            "rebuildLoadThreshold ("
                + threshold
                + ") must be in (0, 1];"
                + " it is the filter load factor above which a rebuild starts");
      }
      this.loadThreshold = threshold;
      return this;
    }

    /**
     * A rebuild starts when the observed fpp exceeds this multiple of the target fpp (default
     * {@value GuardSpec#DEFAULT_FPP_DRIFT_FACTOR}), counted after at least {@value
     * CuckooGuard#MIN_NEGATIVES_FOR_DRIFT} lookups of absent keys since the last rebuild. Ignored
     * without a key source.
     *
     * @param factor greater than 1; {@link Double#POSITIVE_INFINITY} turns the trigger off
     */
    public Builder fppDriftFactor(double factor) {
      if (!Double.isNaN(this.driftFactor)) {
        throw new IllegalStateException("fppDriftFactor was already set to " + this.driftFactor);
      }
      if (!(factor > 1)) {
        throw new IllegalArgumentException(
            "fppDriftFactor ("
                + factor
                + ") must be > 1 (a multiple of the"
                + " target fpp); use Double.POSITIVE_INFINITY to turn the drift trigger off");
      }
      this.driftFactor = factor;
      return this;
    }

    /**
     * The spec.
     *
     * @throws IllegalArgumentException if {@code expectedInsertions} is more than a guard can size
     *     at the rebuild load threshold (the message names the value passed and the maximum)
     */
    public GuardSpec build() {
      double threshold =
          Double.isNaN(loadThreshold) ? DEFAULT_REBUILD_LOAD_THRESHOLD : loadThreshold;
      long max = maxExpectedInsertions(threshold);
      if (expectedInsertions > max) {
        throw new IllegalArgumentException(
            "expectedInsertions ("
                + expectedInsertions
                + ") must be in [1, "
                + max
                + "] for a guard with rebuildLoadThreshold "
                + threshold);
      }
      return new GuardSpec(this);
    }
  }
}
