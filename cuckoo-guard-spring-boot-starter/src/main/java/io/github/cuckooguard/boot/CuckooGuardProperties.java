package io.github.cuckooguard.boot;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the Cuckoo Guard starter, bound from the {@code Environment} under {@value #PREFIX}.
 * An unknown key directly under the prefix fails the start (the binder does not ignore unknown
 * fields), and so does an unknown key under {@code cuckooguard.hibernate.*}, with the accepted
 * names. Not thread-safe while it is bound; read-only afterwards.
 */
@ConfigurationProperties(prefix = CuckooGuardProperties.PREFIX, ignoreUnknownFields = false)
public class CuckooGuardProperties {

  /** The prefix of every setting of the starter. */
  public static final String PREFIX = "cuckooguard";

  /**
   * Whether the starter turns the guards on (what {@code @EnableCuckooGuard} does). With false,
   * annotated repositories run unguarded unless the application declares {@code @EnableCuckooGuard}
   * itself.
   */
  private boolean enabled = true;

  /**
   * cuckoo-guard-hibernate settings, passed to Hibernate as {@code hibernate.cuckoo.<key>}:
   * enabled, entities, expected_insertions, fpp, fingerprint_bits, expansion, seed,
   * rebuild_load_threshold, fpp_drift_factor, scan_fetch_size (dashes, underscores and case are
   * equivalent). They override the same keys given through {@code spring.jpa.properties}.
   */
  private Map<String, String> hibernate = new LinkedHashMap<>();

  /**
   * Settings of the guards declared with {@code @CuckooGuarded(name = …)}, by guard name: {@code
   * cuckooguard.guards.<name>.<setting>} with the settings expected-insertions, fpp,
   * fingerprint-bits, expansion, seed, rebuild-load-threshold, fpp-drift-factor. They override the
   * annotation's expectedInsertions and fpp. A name no {@code @CuckooGuarded} declares, or an
   * unknown setting, fails the start.
   */
  private Map<String, Map<String, String>> guards = new LinkedHashMap<>();

  /**
   * Settings of guarded caches, by cache name: {@code cuckooguard.cache.<name>.<setting>} with the
   * guard settings (expected-insertions, fpp, fingerprint-bits, expansion, seed,
   * rebuild-load-threshold, fpp-drift-factor) and funnel (the class name of a Funnel for the keys).
   * For JCache (cuckoo-guard-jcache's GuardedCachingProvider as {@code
   * spring.cache.jcache.provider}) they are passed to the cache manager; for Spring's {@code
   * CaffeineCacheManager} each cache named here is built as a guarded Caffeine cache (from {@code
   * spring.cache.caffeine.spec}). An unknown setting fails the start.
   */
  private Map<String, Map<String, String>> cache = new LinkedHashMap<>();

  /** Settings of the Micrometer meters. */
  private final Metrics metrics = new Metrics();

  /**
   * Replication of the guards over an embedded Hazelcast cluster: the guards of the context (guard
   * beans and {@code @CuckooGuarded(name = …)}), which join through a {@code HazelcastInstance}
   * bean, and the Hibernate entity guards, passed to Hibernate as {@code
   * hibernate.cuckoo.cluster.*} (both need cuckoo-guard-hazelcast and Hazelcast on the class path).
   */
  private final Cluster cluster = new Cluster();

  /** Whether the starter turns the guards on. */
  public boolean isEnabled() {
    return enabled;
  }

  /** Sets {@link #isEnabled()}. */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** The cuckoo-guard-hibernate settings, keys without the {@code hibernate.cuckoo.} prefix. */
  public Map<String, String> getHibernate() {
    return hibernate;
  }

  /** Sets {@link #getHibernate()}. */
  public void setHibernate(Map<String, String> hibernate) {
    this.hibernate = hibernate;
  }

  /** The settings of the declared guards, by guard name; setting names as written. */
  public Map<String, Map<String, String>> getGuards() {
    return guards;
  }

  /** Sets {@link #getGuards()}. */
  public void setGuards(Map<String, Map<String, String>> guards) {
    this.guards = guards;
  }

  /** The settings of guarded caches, by cache name; setting names as written. */
  public Map<String, Map<String, String>> getCache() {
    return cache;
  }

  /** Sets {@link #getCache()}. */
  public void setCache(Map<String, Map<String, String>> cache) {
    this.cache = cache;
  }

  /** The metrics settings. */
  public Metrics getMetrics() {
    return metrics;
  }

  /** The cluster settings. */
  public Cluster getCluster() {
    return cluster;
  }

  /**
   * Settings of the replication of the guards over an embedded Hazelcast cluster.
   *
   * <p><b>The guards of the context</b> (guard beans and {@code @CuckooGuarded(name = …)}, in
   * groups {@code spring:<name>}): {@link #getEnabled() enabled}, {@link #getHazelcastBean()
   * hazelcast-bean}, {@link #getLeaseMillis() lease-millis} and {@link #getMinimumMembers()
   * minimum-members}. Each one that is set replaces the matching attribute of an
   * {@code @EnableCuckooGuard} the application declares itself ({@code cluster}, {@code
   * hazelcastInstance}, {@code clusterLeaseMillis}, {@code clusterMinimumMembers}), as {@code
   * cuckooguard.guards.*} replaces {@code @CuckooGuarded}'s settings; unset, the annotation's
   * attribute (or its default) applies.
   *
   * <p><b>The Hibernate entity guards</b>: passed to Hibernate as {@code
   * hibernate.cuckoo.cluster.*} (see cuckoo-guard-hibernate's {@code CuckooGuardSettings}); nothing
   * is replicated unless {@link #getInstance() instance} is set. Those values are checked when the
   * {@code EntityManagerFactory} is built.
   *
   * <p>An unknown key under {@code cuckooguard.cluster.} fails the start with the accepted names.
   */
  public static class Cluster {

    /**
     * Whether the guards of the context join their groups on the cluster of a {@code
     * HazelcastInstance} bean. Unset: they join when the context has such a bean (Boot's Hazelcast
     * auto-configuration makes one from a hazelcast.yaml), and the start fails if
     * cuckoo-guard-hazelcast is then missing. true: they join, and the start fails without such a
     * bean or without cuckoo-guard-hazelcast. false: they stay local even with such a bean; set it
     * only if this application is the one instance that writes the guarded stores (another
     * instance's writes are not seen, and its keys would be reported absent). false together with
     * {@link #getInstance() instance} fails the start.
     */
    private @Nullable Boolean enabled;

    /**
     * Name of the {@code HazelcastInstance} bean whose cluster the guards of the context join;
     * needed when the context has several. Unset: its only one.
     */
    private @Nullable String hazelcastBean;

    /**
     * Name of the running embedded Hazelcast member the Hibernate entity guards replicate through
     * (its instance name, e.g. {@code hazelcast.instance-name} in hazelcast.yaml); it must be
     * running before the {@code EntityManagerFactory} is built. Unset: the entity guards are not
     * replicated.
     */
    private @Nullable String instance;

    /**
     * Lease of each member in milliseconds, at least 30, the same on every application instance;
     * for the groups of the guards of the context and for those of the entity guards. Unset: the
     * engine's default (300). A member answers "absent" only within its lease; a write waits at
     * most about half a lease plus one lease for a member that does not answer.
     */
    private @Nullable Long leaseMillis;

    /**
     * The fewest members (this one included) a member must see in its Hazelcast cluster to answer
     * "absent" or to write, in [1, 1000], the same on every application instance; for the groups of
     * the guards of the context and for those of the entity guards. Unset: 1, no split-brain
     * protection. Set it to a majority of the cluster (2 of 3, 3 of 5): an instance that sees fewer
     * (the minority side of a split, or alone after a long pause) then passes through and its
     * guarded writes fail before they are made; while fewer instances are up, none writes.
     */
    private @Nullable Integer minimumMembers;

    /**
     * How long a writer of an entity guard waits for a member's acknowledgement, in milliseconds;
     * unset: lease / 2.
     */
    private @Nullable Long ackTimeoutMillis;

    /**
     * Prefix of the group names of the entity guards, the same on every application instance;
     * unset: {@code hibernate:}.
     */
    private @Nullable String groupPrefix;

    /** Whether the guards of the context join their groups, or null for the default. */
    public @Nullable Boolean getEnabled() {
      return enabled;
    }

    /** Sets {@link #getEnabled()}. */
    public void setEnabled(@Nullable Boolean enabled) {
      this.enabled = enabled;
    }

    /** The name of the HazelcastInstance bean the guards of the context join through, or null. */
    public @Nullable String getHazelcastBean() {
      return hazelcastBean;
    }

    /** Sets {@link #getHazelcastBean()}. */
    public void setHazelcastBean(@Nullable String hazelcastBean) {
      this.hazelcastBean = hazelcastBean;
    }

    /** The member's instance name, or null. */
    public @Nullable String getInstance() {
      return instance;
    }

    /** Sets {@link #getInstance()}. */
    public void setInstance(@Nullable String instance) {
      this.instance = instance;
    }

    /** The lease in milliseconds, or null for the default. */
    public @Nullable Long getLeaseMillis() {
      return leaseMillis;
    }

    /** Sets {@link #getLeaseMillis()}. */
    public void setLeaseMillis(@Nullable Long leaseMillis) {
      this.leaseMillis = leaseMillis;
    }

    /** The minimum members, or null for the default (1). */
    public @Nullable Integer getMinimumMembers() {
      return minimumMembers;
    }

    /** Sets {@link #getMinimumMembers()}. */
    public void setMinimumMembers(@Nullable Integer minimumMembers) {
      this.minimumMembers = minimumMembers;
    }

    /** The acknowledgement timeout in milliseconds, or null for the default. */
    public @Nullable Long getAckTimeoutMillis() {
      return ackTimeoutMillis;
    }

    /** Sets {@link #getAckTimeoutMillis()}. */
    public void setAckTimeoutMillis(@Nullable Long ackTimeoutMillis) {
      this.ackTimeoutMillis = ackTimeoutMillis;
    }

    /** The prefix of the group names, or null for the default. */
    public @Nullable String getGroupPrefix() {
      return groupPrefix;
    }

    /** Sets {@link #getGroupPrefix()}. */
    public void setGroupPrefix(@Nullable String groupPrefix) {
      this.groupPrefix = groupPrefix;
    }
  }

  /** Settings of the Micrometer meters. */
  public static class Metrics {

    /** Whether a meter binder is bound for each guard when Micrometer is present. */
    private boolean enabled = true;

    /** Whether a meter binder is bound for each guard. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Sets {@link #isEnabled()}. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
