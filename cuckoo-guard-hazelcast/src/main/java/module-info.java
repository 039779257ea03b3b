/**
 * Cuckoo Guard across an embedded Hazelcast cluster: {@code HazelcastGuardGroup} makes the guards
 * of one name on all members one replicated guard. The application brings (and starts) its own
 * Hazelcast member.
 */
module io.github.cuckooguard.cluster.hazelcast {
  // HazelcastGuardGroup implements the core's GroupEngine SPI and takes a HazelcastInstance. The
  // Maven scope of Hazelcast is provided (the application chooses its version), but the module
  // cannot work without it, so it is not "requires static".
  requires transitive io.github.cuckooguard.core;
  requires transitive com.hazelcast.core;
  requires static org.jspecify;

  exports io.github.cuckooguard.cluster.hazelcast;
}
