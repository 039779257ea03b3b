/**
 * Implementation of {@code CuckooGuard}: the rebuild protocol, its scheduling, the pass-through
 * switch and listener dispatch. Not API: may change in any release.
 */
@NullMarked
package io.github.cuckooguard.internal.guard;

import org.jspecify.annotations.NullMarked;
