/**
 * Cuckoo Guard core: {@link io.github.cuckooguard.CuckooFilter} (RedisBloom-compatible CF.*
 * operations, thread-safe, compact) and {@code CuckooGuard}, the key-level layer that keeps a
 * filter in step with a cache or a database and rebuilds it from a {@code KeySource}.
 *
 * <p>Everything in this package is public API; {@code io.github.cuckooguard.internal} is not.
 */
@NullMarked
package io.github.cuckooguard;

import org.jspecify.annotations.NullMarked;
