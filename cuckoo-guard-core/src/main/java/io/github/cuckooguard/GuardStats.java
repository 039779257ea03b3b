package io.github.cuckooguard;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a {@link CuckooGuard}'s counters and filter. Counters are cumulative since the
 * guard was built; fields are read one by one without a lock, so under concurrent use each is
 * accurate but they are not one atomic snapshot.
 *
 * @param lookups calls of {@link CuckooGuard#mightContain}
 * @param definiteMisses lookups that answered false (the short-circuits the guard saved)
 * @param falsePositives calls of {@link CuckooGuard#reportFalsePositive} made while pass-through
 *     was off
 * @param observedFpp {@code falsePositives / (falsePositives + definiteMisses)}: the share of
 *     lookups of keys absent at the source that the filter let through; {@code NaN} before any
 * @param size fingerprints in the current filter (one per tracked key, plus leaks that the next
 *     rebuild clears)
 * @param loadFactor share of the current filter's slots in use, in [0, 1]
 * @param sizeInBytes bytes of fingerprint storage in use, including the filter being built while a
 *     rebuild runs
 * @param rebuilds rebuilds that completed and swapped in their filter
 * @param rebuildFailures rebuilds that failed (the key source threw, the executor rejected the
 *     rebuild, or the scan was abandoned); each left the guard pass-through
 * @param lastRebuildDuration how long the last successful rebuild took, {@link Duration#ZERO}
 *     before the first
 * @param lastRebuildFailure why the most recent rebuild failed, or null if it succeeded or none ran
 * @param passThrough whether {@link CuckooGuard#mightContain} currently answers true for every key
 * @param rebuilding whether a rebuild is building a new filter or has been requested and not begun
 *     (false in {@link RebuildListener#onFinish} unless another rebuild is queued)
 */
public record GuardStats(
    long lookups,
    long definiteMisses,
    long falsePositives,
    double observedFpp,
    long size,
    double loadFactor,
    long sizeInBytes,
    long rebuilds,
    long rebuildFailures,
    Duration lastRebuildDuration,
    @Nullable Throwable lastRebuildFailure,
    boolean passThrough,
    boolean rebuilding) {}
