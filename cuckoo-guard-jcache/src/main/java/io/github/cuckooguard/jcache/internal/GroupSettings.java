package io.github.cuckooguard.jcache.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The settings a cache's guard joins its guard group with ({@code cluster-lease}, {@code
 * cluster-minimum-members} of {@link io.github.cuckooguard.jcache.GuardSettings}), already checked.
 *
 * @param lease the group's lease, or null for the cluster module's default
 * @param minimumMembers the fewest members a member must see to answer "absent" or write, in [1,
 *     1000]
 */
public record GroupSettings(@Nullable Duration lease, int minimumMembers) {}
