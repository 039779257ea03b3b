/**
 * Cuckoo Guard for Caffeine: {@link io.github.cuckooguard.caffeine.CaffeineGuard} builds a Caffeine
 * {@code Cache} or {@code LoadingCache} whose every write path keeps a cuckoo filter exactly in
 * step with the cache's keys, so that a lookup of a key that is definitely not cached can skip the
 * cache (or a peer, or an origin) entirely.
 *
 * <p>Everything in this package is public API; {@code io.github.cuckooguard.caffeine.internal} is
 * not.
 */
@NullMarked
package io.github.cuckooguard.caffeine;

import org.jspecify.annotations.NullMarked;
