package io.github.cuckooguard.spring.internal;

import io.github.cuckooguard.CuckooGuard;
import io.github.cuckooguard.spi.ReplicatedGuard;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ClassUtils;

/**
 * Whether, and on which cluster, the guards of a context join their groups ({@code spring:<guard
 * name>}). Names no Hazelcast type: {@link HazelcastReplication} is loaded only once a {@code
 * HazelcastInstance} bean was found and the cluster module is present.
 *
 * <p>A {@link GuardClusterSettings} bean (the Boot starter's {@code cuckooguard.cluster.*}), if the
 * context has one, replaces each attribute of {@code @EnableCuckooGuard} it sets; the errors then
 * name its settings.
 *
 * <p>Decided once, at the first guard or after the singletons exist, whichever comes first; every
 * configuration error (a named bean that is missing or no member, several members and none named,
 * the cluster module missing while a member is there) fails the start. Once the context is running
 * ({@link #start()}), every guard bean joins at once, so that the other instances wait for it from
 * the start; a guard first used earlier joins then. The groups are closed when the context stops,
 * before the member (a singleton) is destroyed.
 *
 * <p>Thread-safe.
 */
final class GuardCluster implements SmartInitializingSingleton, SmartLifecycle {

  static final String HAZELCAST_INSTANCE = "com.hazelcast.core.HazelcastInstance";
  static final String GROUP = "io.github.cuckooguard.cluster.hazelcast.HazelcastGuardGroup";
  static final String GROUP_PREFIX = "spring:";

  /** The guards of one context joined to their groups. */
  interface Replication {
    ReplicatedGuard<Object> join(String groupName, CuckooGuard<Object> guard);

    void close();
  }

  private final ListableBeanFactory beanFactory;
  private final String instanceBean;
  private final boolean enabled;
  private final long leaseMillis;
  private final int minimumMembers;
  private final @Nullable ClassLoader classLoader;
  private @Nullable GuardRegistry registry;

  private boolean decided;
  private @Nullable Replication replication;
  private final Map<String, ReplicatedGuard<Object>> joined = new LinkedHashMap<>();
  private volatile boolean running;

  GuardCluster(
      ListableBeanFactory beanFactory,
      String instanceBean,
      boolean enabled,
      long leaseMillis,
      int minimumMembers,
      @Nullable ClassLoader classLoader) {
    this.beanFactory = beanFactory;
    this.instanceBean = instanceBean;
    this.enabled = enabled;
    this.leaseMillis = leaseMillis;
    this.minimumMembers = minimumMembers;
    this.classLoader = classLoader;
    if (leaseMillis != 0 && leaseMillis < GuardClusterSettings.MIN_LEASE_MILLIS) {
      throw new IllegalStateException(
          "@EnableCuckooGuard(clusterLeaseMillis = "
              + leaseMillis
              + "): the lease must be at least "
              + GuardClusterSettings.MIN_LEASE_MILLIS
              + " ms, or 0 for the cluster module's default");
    }
    checkMinimumMembers(
        "@EnableCuckooGuard(clusterMinimumMembers = " + minimumMembers + ")", minimumMembers);
  }

  private static void checkMinimumMembers(String setting, long value) {
    if (value < GuardClusterSettings.MIN_MINIMUM_MEMBERS
        || value > GuardClusterSettings.MAX_MINIMUM_MEMBERS) {
      throw new IllegalStateException(
          setting
              + ": the minimum members must be in ["
              + GuardClusterSettings.MIN_MINIMUM_MEMBERS
              + ", "
              + GuardClusterSettings.MAX_MINIMUM_MEMBERS
              + "] (a majority of the cluster; 1: no split-brain protection), not "
              + value);
    }
  }

  void registry(GuardRegistry registry) {
    this.registry = registry;
  }

  /**
   * The replicated guard of {@code guard} (joined now if it was not), or null if this context does
   * not cluster.
   *
   * @throws IllegalStateException if clustering is configured wrongly
   */
  synchronized @Nullable ReplicatedGuard<Object> join(String name, CuckooGuard<Object> guard) {
    Replication r = replication();
    if (r == null) {
      return null;
    }
    ReplicatedGuard<Object> existing = joined.get(name);
    if (existing != null) {
      return existing;
    }
    ReplicatedGuard<Object> replicated = r.join(GROUP_PREFIX + name, guard);
    joined.put(name, replicated);
    return replicated;
  }

  /** Whether the guards join groups (decides now if not decided yet). */
  synchronized boolean clustered() {
    return replication() != null;
  }

  private @Nullable Replication replication() {
    if (!decided) {
      replication = decide();
      decided = true;
    }
    return replication;
  }

  private @Nullable Replication decide() {
    // Settings from outside the annotation (the Boot starter's properties) replace its attributes.
    GuardClusterSettings settings =
        beanFactory.getBeanProvider(GuardClusterSettings.class).getIfAvailable();
    Boolean required = settings != null ? settings.enabled() : null;
    boolean on = required != null ? required : enabled;
    String optOut =
        settings != null
            ? settings.name(GuardClusterSettings.Attribute.CLUSTER) + "=false"
            : "@EnableCuckooGuard(cluster = false)";
    String named = instanceBean;
    String namedBy = "@EnableCuckooGuard(hazelcastInstance = \"" + instanceBean + "\")";
    String nameWith = "@EnableCuckooGuard(hazelcastInstance = \"…\")";
    long lease = leaseMillis;
    int minimum = minimumMembers;
    String forced = "";
    if (settings != null) {
      if (required != null) {
        forced = settings.name(GuardClusterSettings.Attribute.CLUSTER) + "=true is set, but ";
      }
      nameWith = settings.name(GuardClusterSettings.Attribute.HAZELCAST_INSTANCE) + "=…";
      String bean = settings.hazelcastInstance();
      if (bean != null) {
        named = bean;
        namedBy = settings.name(GuardClusterSettings.Attribute.HAZELCAST_INSTANCE) + "=" + bean;
      }
      Long millis = settings.leaseMillis();
      if (millis != null) {
        if (millis < GuardClusterSettings.MIN_LEASE_MILLIS) {
          throw new IllegalStateException(
              settings.name(GuardClusterSettings.Attribute.CLUSTER_LEASE_MILLIS)
                  + "="
                  + millis
                  + ": the lease must be at least "
                  + GuardClusterSettings.MIN_LEASE_MILLIS
                  + " ms");
        }
        lease = millis;
      }
      Integer members = settings.minimumMembers();
      if (members != null) {
        checkMinimumMembers(
            settings.name(GuardClusterSettings.Attribute.CLUSTER_MINIMUM_MEMBERS) + "=" + members,
            members);
        minimum = members;
      }
    }
    if (!on) {
      return null;
    }
    boolean hazelcastPresent = ClassUtils.isPresent(HAZELCAST_INSTANCE, classLoader);
    String bean;
    if (!named.isEmpty()) {
      if (!beanFactory.containsBean(named)) {
        throw new IllegalStateException(
            namedBy
                + ": there is no bean named '"
                + named
                + "'. Define the HazelcastInstance (an embedded member) as a bean of that name, or "
                + "remove the setting.");
      }
      if (!hazelcastPresent) {
        throw missingModule("com.hazelcast:hazelcast and ", named, optOut);
      }
      Class<?> type = ClassUtils.resolveClassName(HAZELCAST_INSTANCE, classLoader);
      if (!beanFactory.isTypeMatch(named, type)) {
        throw new IllegalStateException(
            namedBy
                + ": the bean '"
                + named
                + "' is a "
                + beanFactory.getType(named)
                + ", not a com.hazelcast.core.HazelcastInstance.");
      }
      bean = named;
    } else {
      if (!hazelcastPresent) {
        if (required != null) {
          throw new IllegalStateException(
              forced
                  + "com.hazelcast:hazelcast and io.github.cuckooguard:cuckoo-guard-hazelcast are not"
                  + " on the class path. Add them and define a HazelcastInstance bean (an embedded"
                  + " member), or remove the setting.");
        }
        return null;
      }
      Class<?> type = ClassUtils.resolveClassName(HAZELCAST_INSTANCE, classLoader);
      String[] names = beanFactory.getBeanNamesForType(type, true, false);
      if (names.length == 0) {
        if (required != null) {
          throw new IllegalStateException(
              forced
                  + "the context has no HazelcastInstance bean. Define one (an embedded member), or"
                  + " remove the setting.");
        }
        return null;
      }
      if (names.length > 1) {
        throw new IllegalStateException(
            "The guards of this context join their groups on a Hazelcast cluster, but the context"
                + " has "
                + names.length
                + " HazelcastInstance beans "
                + Arrays.toString(names)
                + "; name the member whose cluster the guards join with "
                + nameWith
                + ", or set "
                + optOut
                + " if this is the only application instance that writes the guarded stores.");
      }
      bean = names[0];
    }
    if (!ClassUtils.isPresent(GROUP, classLoader)) {
      throw missingModule("", bean, optOut);
    }
    return new HazelcastReplication(beanFactory.getBean(bean), bean, lease, minimum);
  }

  private static IllegalStateException missingModule(String hazelcast, String bean, String optOut) {
    return new IllegalStateException(
        "The guards of this context join their groups on the cluster of the "
            + "HazelcastInstance bean '"
            + bean
            + "', but "
            + hazelcast
            + "io.github.cuckooguard:cuckoo-guard-hazelcast "
            + (hazelcast.isEmpty() ? "is" : "are")
            + " not on the class path. Add "
            + (hazelcast.isEmpty() ? "it" : "them")
            + " (and, with modules, requires io.github.cuckooguard.cluster.hazelcast), or set "
            + optOut
            + " if this is the only application instance that writes the guarded stores.");
  }

  @Override
  public void afterSingletonsInstantiated() {
    clustered(); // fail the start here on a configuration error
  }

  @Override
  public void start() {
    running = true;
    GuardRegistry r = registry;
    if (r == null || !clustered()) {
      return;
    }
    for (String name : beanFactory.getBeanNamesForType(CuckooGuard.class, false, false)) {
      r.handle(name); // joins its group
    }
  }

  @Override
  public void stop() {
    running = false;
    closeGroups();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Closes every group (idempotent); later lookups of a closed group pass through. */
  synchronized void closeGroups() {
    Replication r = replication;
    if (r != null) {
      r.close();
    }
    joined.clear();
  }
}
