package io.github.cuckooguard.spring.cluster;

import io.github.cuckooguard.spring.EnableCuckooGuard;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The application configurations of the cluster tests: {@link ClusterBeans} with one
 * {@code @EnableCuckooGuard} each. (A holder, not a configuration: Spring would register nested
 * configurations of a configuration class along with it.)
 */
final class ClusterConfigs {

  /** The lease of the test groups: longer than the default, for 2 shared cores. */
  static final long LEASE_MILLIS = 1_000;

  private ClusterConfigs() {}

  /** Guards clustered when there is a HazelcastInstance bean. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterLeaseMillis = LEASE_MILLIS)
  @Import(ClusterBeans.class)
  static class Clustered {}

  /** The broken variant: guards local even with a HazelcastInstance bean. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(cluster = false)
  @Import(ClusterBeans.class)
  static class Local {}

  /** Names a bean that does not exist. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(hazelcastInstance = "noSuchMember")
  @Import(ClusterBeans.class)
  static class NamesMissing {}

  /** Names a bean that is no HazelcastInstance. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(hazelcastInstance = "h2Url")
  @Import(ClusterBeans.class)
  static class NamesNoMember {}

  /** Names one of several members. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(hazelcastInstance = "second", clusterLeaseMillis = LEASE_MILLIS)
  @Import(ClusterBeans.class)
  static class NamesSecond {}

  /** Refuses writes unless two instances are up. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterLeaseMillis = LEASE_MILLIS, clusterMinimumMembers = 2)
  @Import(ClusterBeans.class)
  static class MinimumTwo {}

  /** Below the range of clusterMinimumMembers. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterMinimumMembers = 0)
  @Import(ClusterBeans.class)
  static class MinimumZero {}

  /** Above the range of clusterMinimumMembers. */
  @Configuration(proxyBeanMethods = false)
  @EnableCuckooGuard(clusterMinimumMembers = 1001)
  @Import(ClusterBeans.class)
  static class MinimumTooMany {}
}
