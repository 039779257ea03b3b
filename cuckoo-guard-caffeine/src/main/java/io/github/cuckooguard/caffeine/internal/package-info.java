/**
 * Implementation of the Caffeine adapter: the guarded cache, map view and policy, the loader and
 * eviction-listener wrappers, the rebuild key source. Not API: may change without notice.
 */
@NullMarked
package io.github.cuckooguard.caffeine.internal;

import org.jspecify.annotations.NullMarked;
