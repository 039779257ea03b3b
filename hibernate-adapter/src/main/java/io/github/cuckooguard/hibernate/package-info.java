/**
 * Hibernate ORM integration: a cuckoo guard per entity that mirrors which ids exist in the
 * database, so that {@code Session.find} of an id that was never inserted, or whose delete was
 * committed, returns {@code null} without a SQL round trip.
 *
 * <p>The integrator registers itself through {@code META-INF/services}; it guards only the
 * entities annotated with {@link io.github.cuckooguard.hibernate.GuardedEntity} or listed in
 * {@link io.github.cuckooguard.hibernate.CuckooGuardSettings#ENTITIES}. Use {@link
 * io.github.cuckooguard.hibernate.HibernateCuckooGuards} to read statistics, wait for the
 * warm-up, or mark a guard stale after writing behind Hibernate's back.
 *
 * <p><b>Scope.</b> The guard is exact for writes made through the Hibernate session factories
 * of this JVM that carry the guard (single writer). Rows written by other applications, other
 * JVMs, database triggers or stored procedures are only seen after a rebuild: call {@link
 * io.github.cuckooguard.hibernate.HibernateCuckooGuards#markStale(Class)} when that happens.
 *
 * <p>Everything in this package is public API; {@code io.github.cuckooguard.hibernate.internal}
 * is not.
 */
@NullMarked
package io.github.cuckooguard.hibernate;

import org.jspecify.annotations.NullMarked;
