package io.github.cuckooguard.jcache;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.Funnel;
import io.github.cuckooguard.GuardSpec;
import io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup;

/**
 * The properties that configure {@link GuardedCachingProvider} and the guards of its caches.
 *
 * <p>The guard settings are the core's {@link GuardSpec} properties ({@value #EXPECTED_INSERTIONS},
 * {@value #FPP}, {@code fingerprint-bits}, {@code expansion}, {@code seed}, {@code
 * rebuild-load-threshold}, {@code fpp-drift-factor}; see {@link GuardSpec#PROPERTY_NAMES}), read by
 * {@link GuardSpec#parse}, plus this adapter's {@value #FUNNEL}. Each is looked up, first match
 * wins, as
 *
 * <ol>
 *   <li>{@code cuckooguard.cache.<cache name>.<setting>} in the properties given to {@link
 *       javax.cache.spi.CachingProvider#getCacheManager(java.net.URI, ClassLoader,
 *       java.util.Properties) getCacheManager}, then in the system properties;
 *   <li>{@code cuckooguard.<setting>} in those properties, then in the system properties;
 *   <li>the default ({@link GuardSpec}: {@value AbstractFilterBuilder#DEFAULT_EXPECTED_INSERTIONS}
 *       expected insertions, fpp {@value AbstractFilterBuilder#DEFAULT_FPP}).
 * </ol>
 *
 * For example {@code -Dcuckooguard.expected-insertions=100000 -Dcuckooguard.cache.users.fpp=0.001}.
 * Names may be written in kebab-case, snake_case or camelCase. A bad value, or an unknown setting
 * under {@value #PREFIX} (or {@code cuckooguard.cache.<name>.}), makes {@code createCache}/{@code
 * getCache} throw {@link IllegalArgumentException} naming the property, where it was found, the
 * value and the accepted values or names.
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
   * Setting: keys a cache's guard holds without a rebuild ({@link GuardSpec#expectedInsertions()}).
   * Fingerprints of keys that leave by expiry, eviction or bulk removal stay until the next rebuild
   * (see {@link GuardedCache}), so count the entries the cache holds plus those created between
   * rebuilds.
   */
  public static final String EXPECTED_INSERTIONS = "expected-insertions";

  /**
   * The former name of {@link #EXPECTED_INSERTIONS}, still read (with a warning in the log).
   *
   * @deprecated use {@link #EXPECTED_INSERTIONS}
   */
  @Deprecated public static final String EXPECTED_ENTRIES = "expected-entries";

  /**
   * Setting: target false-positive probability of a cache's guard, in (0, 1) ({@link
   * GuardSpec#fpp()}).
   */
  public static final String FPP = "fpp";

  /**
   * Setting: class name of the {@link Funnel} for a cache's keys; it needs a public no-argument
   * constructor and is loaded by the cache manager's class loader. By default keys of type {@code
   * String}, {@code Long}, {@code Integer}, {@code UUID} and {@code byte[]} are hashed by value and
   * any other key by its {@code hashCode()}.
   */
  public static final String FUNNEL = "funnel";

  /**
   * Setting: whether a cache of a Hazelcast member joins the guard group of its cache on the
   * cluster ({@code true} or {@code false}; default {@value #DEFAULT_CLUSTER}). Takes effect only
   * when {@code cuckoo-guard-hazelcast} is on the class path and the wrapped provider is
   * Hazelcast's member provider; see {@link GuardedCache}. Every member that writes the cache must
   * have the same setting: a member outside the group writes outside the promise.
   */
  public static final String CLUSTER = "cluster";

  /** Default of {@link #CLUSTER}. */
  public static final boolean DEFAULT_CLUSTER = true;

  /**
   * Setting: the lease of a cache's guard group, in milliseconds (default: the cluster module's,
   * {@value HazelcastGuardGroup#DEFAULT_LEASE_MILLIS}; at least {@value
   * HazelcastGuardGroup#MIN_LEASE_MILLIS}): how long a member answers "definitely absent" after its
   * last renewal; a write waits at most about one and a half leases for a member that stopped
   * answering.
   */
  public static final String CLUSTER_LEASE = "cluster-lease";

  /**
   * Setting: the fewest members (this one included) a member of a cache's guard group must see in
   * its Hazelcast cluster to answer "definitely absent" or to write (a whole number in [{@value
   * #MIN_CLUSTER_MINIMUM_MEMBERS}, {@value #MAX_CLUSTER_MINIMUM_MEMBERS}]; default {@value
   * #DEFAULT_CLUSTER_MINIMUM_MEMBERS}: no split-brain protection); {@code
   * HazelcastGuardGroup.Builder.minimumMembers}. Set it to a majority of the cluster (2 of 3, 3 of
   * 5): a member that sees fewer (the minority side of a split, or alone after a pause longer than
   * Hazelcast's failure detection) then passes through, and a write through its guarded cache
   * throws {@link javax.cache.CacheException} without changing the cache. The price: while fewer
   * members are up, no member writes. Every member should have the same value.
   */
  public static final String CLUSTER_MINIMUM_MEMBERS = "cluster-minimum-members";

  /** Default of {@link #CLUSTER_MINIMUM_MEMBERS}. */
  public static final int DEFAULT_CLUSTER_MINIMUM_MEMBERS = 1;

  /** Smallest accepted value of {@link #CLUSTER_MINIMUM_MEMBERS}. */
  public static final int MIN_CLUSTER_MINIMUM_MEMBERS = HazelcastGuardGroup.MIN_MINIMUM_MEMBERS;

  /** Largest accepted value of {@link #CLUSTER_MINIMUM_MEMBERS} (the cluster module's bound). */
  public static final int MAX_CLUSTER_MINIMUM_MEMBERS = HazelcastGuardGroup.MAX_MINIMUM_MEMBERS;

  private GuardSettings() {}
}
