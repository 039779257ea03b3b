/**
 * Story 3, a JCache cluster: two Hazelcast members on loopback, a cache read through the
 * cuckoo-guard-jcache's guarded provider, and a member that leaves. Start at {@link
 * io.github.cuckooguard.samples.jcache.JCacheClusterStory}.
 */
@NullMarked
package io.github.cuckooguard.samples.jcache;

import org.jspecify.annotations.NullMarked;
