package io.github.cuckooguard.spring;

import io.github.cuckooguard.spring.internal.CuckooGuardConfigurationSelector;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;

/**
 * Enables the guard annotations ({@link GuardedFind}, {@link GuardedAdd}, {@link GuardedRemove}) on
 * Spring beans, the way {@code @EnableCaching} enables {@code @Cacheable}: put it on a
 * {@code @Configuration} class.
 *
 * <pre>{@code
 * @Configuration
 * @EnableCuckooGuard
 * @EnableTransactionManagement
 * class AppConfig { … }
 * }</pre>
 *
 * <p>It registers, as infrastructure beans, an auto-proxy creator (the one {@code @EnableCaching}
 * and {@code @EnableTransactionManagement} share), an advisor that matches the annotated methods of
 * class-based beans and of Spring Data interface repositories, its interceptor, one {@link
 * io.github.cuckooguard.CuckooGuard} bean per name declared with {@link CuckooGuarded}, and the
 * warm-up that fills each guard from its key source once the context is refreshed. For
 * {@code @CuckooGuarded(entity = …)} it registers, instead of a guard, the lookup of
 * cuckoo-guard-hibernate's entity guards, checked once the singletons exist.
 *
 * <p><b>Order.</b> The advisor must run <em>before</em> the transaction interceptor, so that a
 * definite miss opens no transaction and takes no connection. Its {@link #order()} defaults to
 * {@value #DEFAULT_ORDER}, which is before a transaction advisor left at its default order ({@link
 * Ordered#LOWEST_PRECEDENCE}) and after security interceptors, which use small orders (a guard in
 * front of an access check would tell an unauthorised caller which keys exist). The context fails
 * to start if a transaction advisor is ordered before the guard advisor. Spring Data repositories
 * apply their transactions inside the repository proxy, which the guard wraps, so there the guard
 * always runs first.
 *
 * <p><b>Proxies.</b> As with every Spring AOP feature, calls from inside the bean to its own
 * methods ({@code this.insert(…)}) are not intercepted: a guarded add reached that way is never
 * recorded, and later finds of the key would be answered "absent". Call annotated methods through
 * the bean reference only. Annotated methods must not be {@code private}, {@code static} or {@code
 * final}; the context fails to start if one is.
 *
 * <p><b>Several application instances.</b> When the context has a {@code
 * com.hazelcast.core.HazelcastInstance} bean (an embedded member), or {@link #hazelcastInstance()}
 * names one, every guard of the context joins the group {@code spring:<guard name>} on that cluster
 * (with {@code io.github.cuckooguard:cuckoo-guard-hazelcast} on the class path): a guarded add on
 * one instance is acknowledged by every other instance before its transaction commits (the enters
 * of one transaction in one round trip), a guarded remove is announced to them before the method
 * runs, and a guarded find on any instance answers "absent" only while that instance holds a lease
 * of its group. The guarantees and their assumptions are those of the {@code
 * io.github.cuckooguard.cluster.hazelcast} package. Without such a bean nothing changes and no
 * Hazelcast class is loaded.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(CuckooGuardConfigurationSelector.class)
public @interface EnableCuckooGuard {

  /** The default of {@link #order()}: {@code Ordered.LOWEST_PRECEDENCE - 1000}. */
  int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

  /**
   * Whether to create subclass (CGLIB) proxies instead of interface-based (JDK) proxies. As with
   * {@code @EnableCaching}, {@code true} switches every auto-proxied bean of the context, not only
   * the guarded ones, to class proxies.
   */
  boolean proxyTargetClass() default false;

  /**
   * The order of the guard advisor among the advisors applied at one join point; it must be smaller
   * (earlier) than the order of the transaction advisor.
   */
  int order() default DEFAULT_ORDER;

  /**
   * The name of the {@code HazelcastInstance} bean (an embedded member) whose cluster the guards of
   * this context join. Empty (the default): the context's only {@code HazelcastInstance} bean, if
   * there is one. The context fails to start if the named bean does not exist or is no {@code
   * HazelcastInstance}, if there are several such beans and none is named, or if
   * cuckoo-guard-hazelcast is not on the class path.
   */
  String hazelcastInstance() default "";

  /**
   * Whether the guards join a group when the context has a {@code HazelcastInstance} bean (default
   * true). Set it to false only if this application is the one instance that writes the guarded
   * stores; otherwise another instance's writes are not seen and its keys are reported absent.
   */
  boolean cluster() default true;

  /**
   * The lease of the guard groups in milliseconds (at least 30), the same on every instance; 0 (the
   * default): the cluster module's ({@code HazelcastGuardGroup.DEFAULT_LEASE_MILLIS}). An instance
   * answers "absent" only within a lease it renews every third of it; a write waits at most about
   * half a lease plus one lease for an instance that does not answer.
   */
  long clusterLeaseMillis() default 0;

  /** The default of {@link #clusterMinimumMembers()}: {@value}, no split-brain protection. */
  int DEFAULT_CLUSTER_MINIMUM_MEMBERS = 1;

  /**
   * The fewest instances (this one included) an instance must see in its Hazelcast cluster to
   * answer "absent" or to write, in [1, 1000] (default {@value #DEFAULT_CLUSTER_MINIMUM_MEMBERS}:
   * no protection); {@code HazelcastGuardGroup.Builder.minimumMembers}. Set it to a majority of the
   * cluster (2 of 3, 3 of 5), the same on every instance: an instance that sees fewer (the minority
   * side of a split, or alone after a pause longer than Hazelcast's failure detection) then passes
   * through, and its guarded adds and removes throw {@code IllegalStateException} before the method
   * runs (in a transaction: at the commit, which rolls back). The price: while fewer instances are
   * up, none writes through a guarded method. The context fails to start on a value outside [1,
   * 1000].
   */
  int clusterMinimumMembers() default DEFAULT_CLUSTER_MINIMUM_MEMBERS;
}
