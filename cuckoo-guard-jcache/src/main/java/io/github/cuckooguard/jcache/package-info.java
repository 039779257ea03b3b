/**
 * JCache (JSR-107) integration: {@link io.github.cuckooguard.jcache.GuardedCache} puts a cuckoo
 * guard in front of a cache of any provider, so that lookups of keys that are definitely absent
 * skip the provider; {@link io.github.cuckooguard.jcache.GuardedCachingProvider} and {@link
 * io.github.cuckooguard.jcache.GuardedCacheManager} guard every cache of an application by
 * configuration; {@link io.github.cuckooguard.jcache.GuardSettings} lists the properties.
 *
 * <p>Everything in this package is public API; {@code io.github.cuckooguard.jcache.internal} is
 * not.
 */
@NullMarked
package io.github.cuckooguard.jcache;

import org.jspecify.annotations.NullMarked;
