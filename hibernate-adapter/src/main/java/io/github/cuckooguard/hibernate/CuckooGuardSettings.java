package io.github.cuckooguard.hibernate;

/**
 * Configuration properties of the Hibernate integration, all under the prefix {@value #PREFIX}.
 * Set them like any other Hibernate setting ({@code hibernate.properties}, {@code
 * persistence.xml}, {@code Configuration.setProperty}, Spring's {@code jpaProperties}).
 *
 * <p>Values are validated when the session factory is built; a bad value fails the build with an
 * {@link IllegalArgumentException} whose message names the setting, the value and the accepted
 * range. Per-entity values given with {@link GuardedEntity} take precedence over the defaults
 * here.
 *
 * <p>This class only holds constants.
 */
public final class CuckooGuardSettings {

  /** The prefix every setting of this integration starts with. */
  public static final String PREFIX = "hibernate.cuckoo.";

  /**
   * Master switch, {@code true} or {@code false}; default {@value #DEFAULT_ENABLED}. The
   * integrator only guards entities that ask for it (annotated with {@link GuardedEntity} or
   * listed in {@link #ENTITIES}); with neither it registers nothing. Setting this to {@code
   * false} turns every guard off, annotated or not, for example to compare behaviour without
   * the guard.
   */
  public static final String ENABLED = PREFIX + "enabled";

  /** Default of {@link #ENABLED}. */
  public static final boolean DEFAULT_ENABLED = true;

  /**
   * Comma-separated entity names or fully qualified class names to guard in addition to those
   * annotated with {@link GuardedEntity}; default none. Naming a subclass guards its whole
   * inheritance hierarchy, because ids are unique per root entity. An unknown name fails the
   * build.
   */
  public static final String ENTITIES = PREFIX + "entities";

  /**
   * Rows each guard is sized for at first, a positive integer; default {@value
   * #DEFAULT_EXPECTED_ROWS}. The guard rebuilds itself at the right size when the table grows
   * past {@link #REBUILD_THRESHOLD} of its capacity, so this is a starting point, not a limit.
   */
  public static final String EXPECTED_ROWS = PREFIX + "expected_rows";

  /** Default of {@link #EXPECTED_ROWS}. */
  public static final long DEFAULT_EXPECTED_ROWS = 100_000L;

  /**
   * Target false-positive probability of each guard, strictly between 0 and 1; default {@value
   * #DEFAULT_FPP}. A false positive costs the SELECT the guard would have skipped; smaller values
   * cost memory (about log2(8/fpp) bits a row).
   */
  public static final String FPP = PREFIX + "fpp";

  /** Default of {@link #FPP}. */
  public static final double DEFAULT_FPP = 0.01;

  /**
   * Load factor (fraction of the filter's slots in use) above which a guard rebuilds itself,
   * right-sized, in the background, strictly between 0 and 1; default {@value
   * #DEFAULT_REBUILD_THRESHOLD}.
   */
  public static final String REBUILD_THRESHOLD = PREFIX + "rebuild_threshold";

  /** Default of {@link #REBUILD_THRESHOLD}. */
  public static final double DEFAULT_REBUILD_THRESHOLD = 0.85;

  /**
   * JDBC fetch size of the {@code select id} scan that warms up and rebuilds a guard, a positive
   * integer; default {@value #DEFAULT_SCAN_FETCH_SIZE}. Some drivers need a special value to
   * stream instead of buffering the whole result (MySQL Connector/J: enable {@code
   * useCursorFetch} on the URL).
   */
  public static final String SCAN_FETCH_SIZE = PREFIX + "scan_fetch_size";

  /** Default of {@link #SCAN_FETCH_SIZE}. */
  public static final int DEFAULT_SCAN_FETCH_SIZE = 1_000;

  private CuckooGuardSettings() {}
}
