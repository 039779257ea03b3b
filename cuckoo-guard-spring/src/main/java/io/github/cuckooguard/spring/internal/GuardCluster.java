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
      @Nullable ClassLoader classLoader) {
    this.beanFactory = beanFactory;
    this.instanceBean = instanceBean;
    this.enabled = enabled;
    this.leaseMillis = leaseMillis;
    this.classLoader = classLoader;
    if (leaseMillis != 0 && leaseMillis < 30) {
      throw new IllegalStateException(
          "@EnableCuckooGuard(clusterLeaseMillis = "
              + leaseMillis
              + "): the lease must be at least 30 ms, or 0 for the cluster module's default");
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
    if (!enabled) {
      return null;
    }
    boolean hazelcastPresent = ClassUtils.isPresent(HAZELCAST_INSTANCE, classLoader);
    String bean;
    if (!instanceBean.isEmpty()) {
      if (!beanFactory.containsBean(instanceBean)) {
        throw new IllegalStateException(
            "@EnableCuckooGuard(hazelcastInstance = \""
                + instanceBean
                + "\"): there is no bean named '"
                + instanceBean
                + "'. Define the HazelcastInstance (an embedded member) as a bean of that name, or "
                + "remove the attribute.");
      }
      if (!hazelcastPresent) {
        throw missingModule("com.hazelcast:hazelcast and ", instanceBean);
      }
      Class<?> type = ClassUtils.resolveClassName(HAZELCAST_INSTANCE, classLoader);
      if (!beanFactory.isTypeMatch(instanceBean, type)) {
        throw new IllegalStateException(
            "@EnableCuckooGuard(hazelcastInstance = \""
                + instanceBean
                + "\"): the bean '"
                + instanceBean
                + "' is a "
                + beanFactory.getType(instanceBean)
                + ", not a com.hazelcast.core.HazelcastInstance.");
      }
      bean = instanceBean;
    } else {
      if (!hazelcastPresent) {
        return null;
      }
      Class<?> type = ClassUtils.resolveClassName(HAZELCAST_INSTANCE, classLoader);
      String[] names = beanFactory.getBeanNamesForType(type, true, false);
      if (names.length == 0) {
        return null;
      }
      if (names.length > 1) {
        throw new IllegalStateException(
            "@EnableCuckooGuard: the context has "
                + names.length
                + " HazelcastInstance beans "
                + Arrays.toString(names)
                + "; name the member whose cluster the guards join with "
                + "@EnableCuckooGuard(hazelcastInstance = \"…\"), or set cluster = false if this is "
                + "the only application instance that writes the guarded stores.");
      }
      bean = names[0];
    }
    if (!ClassUtils.isPresent(GROUP, classLoader)) {
      throw missingModule("", bean);
    }
    return new HazelcastReplication(beanFactory.getBean(bean), bean, leaseMillis);
  }

  private static IllegalStateException missingModule(String hazelcast, String bean) {
    return new IllegalStateException(
        "@EnableCuckooGuard: the guards of this context join their groups on the cluster of the "
            + "HazelcastInstance bean '"
            + bean
            + "', but "
            + hazelcast
            + "io.github.cuckooguard:cuckoo-guard-hazelcast "
            + (hazelcast.isEmpty() ? "is" : "are")
            + " not on the class path. Add "
            + (hazelcast.isEmpty() ? "it" : "them")
            + " (and, with modules, requires io.github.cuckooguard.cluster.hazelcast), or set "
            + "@EnableCuckooGuard(cluster = false) if this is the only application instance that "
            + "writes the guarded stores.");
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
