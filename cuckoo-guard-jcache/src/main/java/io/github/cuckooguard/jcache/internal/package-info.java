/**
 * Implementation of the JCache adapter: the guard of a cache with its half of the core's write
 * protocol ({@link io.github.cuckooguard.jcache.internal.CacheGuard}), the event listener that
 * feeds it, the cache's lookups, writes, removals and entry processors, the default key funnel,
 * delegate discovery and configuration views. Not API: may change in any release.
 */
@NullMarked
package io.github.cuckooguard.jcache.internal;

import org.jspecify.annotations.NullMarked;
