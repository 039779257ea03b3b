/**
 * Story 1, a CDN edge: a memory tier, a storage node behind loopback HTTP guarded by the
 * cuckoo-guard-caffeine, and a slow origin. Start at {@link
 * io.github.cuckooguard.samples.cdn.CdnEdgeStory}.
 */
@NullMarked
package io.github.cuckooguard.samples.cdn;

import org.jspecify.annotations.NullMarked;
