package io.github.cuckooguard.hibernate;

import io.github.cuckooguard.AbstractFilterBuilder;
import io.github.cuckooguard.GuardSpec;

/**
 * Configuration properties of the Hibernate integration, all under the prefix {@value #PREFIX}. Set
 * them like any other Hibernate setting ({@code hibernate.properties}, {@code persistence.xml},
 * {@code Configuration.setProperty}, Spring's {@code jpaProperties}).
 *
 * <p>The guard settings are the core's ({@link GuardSpec}, read by {@link GuardSpec#parse}) with
 * their meaning and defaults; this integration adds {@link #ENABLED}, {@link #ENTITIES} and {@link
 * #SCAN_FETCH_SIZE}, and its own default capacity ({@link #DEFAULT_EXPECTED_INSERTIONS}). Names are
 * given here in Hibernate's snake_case; kebab-case and camelCase spellings of the same name are
 * read too ({@code hibernate.cuckoo.expected-insertions}, {@code
 * hibernate.cuckoo.expectedInsertions}).
 *
 * <p>Everything is validated when the session factory is built: an unknown name under the prefix (a
 * misspelling such as {@code hibernate.cuckoo.fpq}) or a bad value fails the build with an {@link
 * IllegalArgumentException} that names the setting, the value and what is accepted. Per-entity
 * values given with {@link GuardedEntity} take precedence over these.
 *
 * <p>Renamed: {@code hibernate.cuckoo.expected_rows} is now {@link #EXPECTED_INSERTIONS} and {@code
 * hibernate.cuckoo.rebuild_threshold} is now {@link #REBUILD_LOAD_THRESHOLD}; the old names are
 * still read, with a warning.
 *
 * <p>This class only holds constants.
 */
public final class CuckooGuardSettings {

  /** The prefix every setting of this integration starts with. */
  public static final String PREFIX = "hibernate.cuckoo.";

  /**
   * Master switch, {@code true} or {@code false}; default {@value #DEFAULT_ENABLED}. The integrator
   * only guards entities that ask for it (annotated with {@link GuardedEntity} or listed in {@link
   * #ENTITIES}); with neither it registers nothing. Setting this to {@code false} turns every guard
   * off, annotated or not, for example to compare behaviour without the guard.
   */
  public static final String ENABLED = PREFIX + "enabled";

  /** Default of {@link #ENABLED}. */
  public static final boolean DEFAULT_ENABLED = true;

  /**
   * Comma-separated entity names or fully qualified class names to guard in addition to those
   * annotated with {@link GuardedEntity}; default none. Naming a subclass guards its whole
   * inheritance hierarchy, because ids are unique per root entity. An unknown name fails the build.
   */
  public static final String ENTITIES = PREFIX + "entities";

  /**
   * Ids each guard holds without a rebuild, a positive integer; default {@value
   * #DEFAULT_EXPECTED_INSERTIONS} ({@link GuardSpec#expectedInsertions()}). The guard rebuilds
   * itself at the right size when the table grows past that, so this is a starting point, not a
   * limit.
   */
  public static final String EXPECTED_INSERTIONS = PREFIX + "expected_insertions";

  /**
   * Default of {@link #EXPECTED_INSERTIONS}: larger than the core's {@value
   * AbstractFilterBuilder#DEFAULT_EXPECTED_INSERTIONS}, because a table tends to hold more ids than
   * a cache holds keys, and each rebuild on the way up is a full id scan.
   */
  public static final long DEFAULT_EXPECTED_INSERTIONS = 100_000L;

  /**
   * Target false-positive probability of each guard, strictly between 0 and 1; default {@value
   * AbstractFilterBuilder#DEFAULT_FPP}. A false positive costs the SELECT the guard would have
   * skipped; smaller values cost memory (about log2(8/fpp) bits a row). Exclusive with {@link
   * #FINGERPRINT_BITS}.
   */
  public static final String FPP = PREFIX + "fpp";

  /** Fingerprint width in bits (4 to 16) instead of {@link #FPP}; see {@link GuardSpec}. */
  public static final String FINGERPRINT_BITS = PREFIX + "fingerprint_bits";

  /**
   * Load factor (fraction of the filter's slots in use) above which a guard rebuilds itself,
   * right-sized, in the background, in (0, 1]; default {@value
   * GuardSpec#DEFAULT_REBUILD_LOAD_THRESHOLD}.
   */
  public static final String REBUILD_LOAD_THRESHOLD = PREFIX + "rebuild_load_threshold";

  /**
   * Multiple of the target fpp that the observed fpp must exceed to start a rebuild; default
   * {@value GuardSpec#DEFAULT_FPP_DRIFT_FACTOR}.
   */
  public static final String FPP_DRIFT_FACTOR = PREFIX + "fpp_drift_factor";

  /**
   * Growth of a guard's first filter when it fills before a rebuild; default {@value
   * AbstractFilterBuilder#DEFAULT_EXPANSION}.
   */
  public static final String EXPANSION = PREFIX + "expansion";

  /** Hash seed of every filter (a whole number); by default each filter draws a random one. */
  public static final String SEED = PREFIX + "seed";

  /**
   * JDBC fetch size of the {@code select id} scan that warms up and rebuilds a guard, a positive
   * integer; default {@value #DEFAULT_SCAN_FETCH_SIZE}. Some drivers need a special value to stream
   * instead of buffering the whole result (MySQL Connector/J: enable {@code useCursorFetch} on the
   * URL).
   */
  public static final String SCAN_FETCH_SIZE = PREFIX + "scan_fetch_size";

  /** Default of {@link #SCAN_FETCH_SIZE}. */
  public static final int DEFAULT_SCAN_FETCH_SIZE = 1_000;

  /**
   * The prefix of the cluster settings. With {@link #CLUSTER_INSTANCE} set, the guard of every
   * entity (and tenant) joins the guards of the same name on the other members of that Hazelcast
   * cluster, so that several application instances on one database stay exact: an insert's enter is
   * acknowledged by every member at flush, before the commit; a delete leaves after the commit; a
   * member answers "no such row" only while it holds a fresh lease from the group; a bulk or native
   * statement, stored procedure or upsert holds every member's guard of the entity in pass-through
   * from before it runs until a rescan after its transaction completed. Needs {@code
   * cuckoo-guard-hazelcast} (and Hazelcast) on the class path; the guarantees and their assumptions
   * are those of {@code io.github.cuckooguard.cluster.hazelcast}. Without these settings nothing
   * changes and neither is needed.
   */
  public static final String CLUSTER_PREFIX = PREFIX + "cluster.";

  /**
   * The Hazelcast member to replicate through: a {@code HazelcastInstance} given in the settings
   * map, or the name of a running instance ({@code Hazelcast.getHazelcastInstanceByName}). One
   * session factory per member and group name ({@link #CLUSTER_GROUP_PREFIX}).
   */
  public static final String CLUSTER_INSTANCE = CLUSTER_PREFIX + "instance";

  /**
   * Lease of each member in milliseconds (at least 30); default the engine's (300). A write waits
   * at most about ack timeout + lease for a member that neither answers nor has left.
   */
  public static final String CLUSTER_LEASE_MILLIS = CLUSTER_PREFIX + "lease_millis";

  /** How long a writer waits for a member's acknowledgement, in milliseconds; default lease / 2. */
  public static final String CLUSTER_ACK_TIMEOUT_MILLIS = CLUSTER_PREFIX + "ack_timeout_millis";

  /**
   * Prefix of the group names, the same on every application instance; default {@value
   * #DEFAULT_CLUSTER_GROUP_PREFIX}. A group is named prefix + root entity name (+ tenant).
   */
  public static final String CLUSTER_GROUP_PREFIX = CLUSTER_PREFIX + "group_prefix";

  /**
   * The fewest application instances (this one included) an instance must see in its Hazelcast
   * cluster to answer "no such row" or to write; default 1 (no split-brain protection). Set it to a
   * majority of the instances (2 of 3) so that an instance cut off from the others (a network
   * split, or a pause longer than Hazelcast's failure detection) fails its writes and passes
   * through instead of answering from a filter the others no longer update. While fewer instances
   * run, writes fail.
   */
  public static final String CLUSTER_MINIMUM_MEMBERS = CLUSTER_PREFIX + "minimum_members";

  /** Default of {@link #CLUSTER_GROUP_PREFIX}. */
  public static final String DEFAULT_CLUSTER_GROUP_PREFIX = "hibernate:";

  private CuckooGuardSettings() {}
}
