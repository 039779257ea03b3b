package io.github.cuckooguard.jcache;

import io.github.cuckooguard.Funnel;

/**
 * The properties that configure {@link GuardedCachingProvider} and the guards of its caches, and
 * their defaults.
 *
 * <p>A guard setting is looked up, first match wins, as
 * <ol>
 *   <li>{@code cuckooguard.cache.<cache name>.<setting>} in the properties given to
 *       {@link javax.cache.spi.CachingProvider#getCacheManager(java.net.URI, ClassLoader,
 *       java.util.Properties) getCacheManager}, then in the system properties;
 *   <li>{@code cuckooguard.<setting>} in those properties, then in the system properties;
 *   <li>the default.
 * </ol>
 * For example {@code -Dcuckooguard.expected-entries=100000 -Dcuckooguard.cache.users.fpp=0.001}.
 * A bad value makes {@code createCache}/{@code getCache} throw {@link IllegalArgumentException}
 * naming the property, the value and the accepted range.
 *
 * <p>Not instantiable.
 */
public final class GuardSettings {

  /**
   * System property naming the class of the provider that {@link GuardedCachingProvider} wraps,
   * e.g. {@code com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider}. If unset, the
   * single other provider registered in {@code META-INF/services} is used.
   */
  public static final String DELEGATE = "cuckooguard.delegate";

  /** Prefix of all settings. */
  public static final String PREFIX = "cuckooguard.";

  /** Prefix of the settings of one cache: {@code cuckooguard.cache.<name>.<setting>}. */
  public static final String CACHE_PREFIX = "cuckooguard.cache.";

  /**
   * Setting: entries a cache's guard is sized for; a positive integer. Removed entries keep their
   * fingerprints until the next rebuild (see {@link GuardedCache}), so count the entries the cache
   * holds plus those created between rebuilds; the guard grows beyond it and then rebuilds
   * right-sized.
   */
  public static final String EXPECTED_ENTRIES = "expected-entries";

  /** Default of {@link #EXPECTED_ENTRIES}. */
  public static final long DEFAULT_EXPECTED_ENTRIES = 10_000;

  /** Setting: target false-positive probability of a cache's guard, in (0, 1). */
  public static final String FPP = "fpp";

  /** Default of {@link #FPP}. */
  public static final double DEFAULT_FPP = 0.01;

  /**
   * Setting: class name of the {@link Funnel} for a cache's keys; it needs a public no-argument
   * constructor and is loaded by the cache manager's class loader. By default keys of type
   * {@code String}, {@code Long}, {@code Integer}, {@code UUID} and {@code byte[]} are hashed by
   * value and any other key by its {@code hashCode()}.
   */
  public static final String FUNNEL = "funnel";

  private GuardSettings() {}

  static long checkExpectedEntries(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " (" + value + ") must be a positive number of entries;"
          + " set it to the number of entries the cache holds at most");
    }
    return value;
  }

  static double checkFpp(double value, String name) {
    if (!(value > 0 && value < 1)) {
      throw new IllegalArgumentException(name + " (" + value + ") must be in (0, 1), e.g. 0.01 for 1 %"
          + " false positives");
    }
    return value;
  }
}
