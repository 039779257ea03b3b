package io.github.cuckooguard.hibernate;

import io.github.cuckooguard.GuardStats;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one entity's guard (for one tenant), taken by {@link
 * HibernateCuckooGuards#stats(Class)}.
 *
 * @param entityName the root entity of the guarded hierarchy
 * @param tenantId the tenant the guard serves, or null without multi-tenancy
 * @param finds {@code find}/{@code get}/{@code byId().load} calls that asked the guard (loads
 *     answered from the persistence context are not counted)
 * @param shortCircuits finds answered {@code null} by the guard; each one is a SQL round trip
 *     avoided
 * @param falsePositives finds that passed the guard, ran their SQL and found no row (counted while
 *     the guard was warmed up, and only for loads of the root entity)
 * @param guard the underlying guard's counters, size, memory and rebuild state
 */
public record EntityGuardStats(
    String entityName,
    @Nullable Object tenantId,
    long finds,
    long shortCircuits,
    long falsePositives,
    GuardStats guard) {}
