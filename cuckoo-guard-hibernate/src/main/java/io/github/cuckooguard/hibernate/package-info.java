/**
 * Hibernate ORM integration: a cuckoo guard per entity that mirrors which ids exist in the
 * database, so that {@code Session.find} of an id that was never inserted, or whose delete was
 * committed, returns {@code null} without a SQL round trip.
 *
 * <p>The integrator registers itself through {@code META-INF/services}; it guards only the entities
 * annotated with {@link io.github.cuckooguard.hibernate.GuardedEntity} or listed in {@link
 * io.github.cuckooguard.hibernate.CuckooGuardSettings#ENTITIES}. Use {@link
 * io.github.cuckooguard.hibernate.HibernateCuckooGuards} to read statistics, wait for the warm-up,
 * or mark a guard stale after writing behind Hibernate's back.
 *
 * <p><b>Scope.</b> The guard is exact for writes made through the Hibernate session factories of
 * this JVM that carry the guard (single writer), or, with the {@code hibernate.cuckoo.cluster.*}
 * settings, through those of every application instance in the cluster (their bulk and native
 * statements included: see {@link
 * io.github.cuckooguard.hibernate.CuckooGuardSettings#CLUSTER_PREFIX}). Rows written by other
 * applications, JVMs outside the cluster or database triggers are only seen after a rebuild: call
 * {@link io.github.cuckooguard.hibernate.HibernateCuckooGuards#markStale(Class)} (on every
 * instance) when that happens.
 *
 * <p><b>What is and is not short-circuited.</b> Only {@code find}/{@code get}/{@code byId().load}
 * of a {@code Session} (load type GET) without a pessimistic lock, for an id that is neither in the
 * persistence context nor proxied there. References ({@code getReference}), association fetches,
 * multi-id loads, queries and {@code StatelessSession.get} always reach the database. Code that
 * wants to skip more than the SQL (a framework that would open a transaction first, as the
 * cuckoo-guard-spring's {@code @CuckooGuarded(entity = …)} does) asks {@link
 * io.github.cuckooguard.hibernate.HibernateCuckooGuards#mightContain(Class, Object)} itself.
 *
 * <p><b>Writes the guard follows exactly:</b> entity inserts and deletes of {@code Session} and
 * {@code StatelessSession} inside a transaction, and inserts outside one whose id is known before
 * the INSERT (assigned, sequence, UUID). Each is announced to the guard before it can become
 * visible and completed after commit or rollback (the core's write protocol, {@code
 * io.github.cuckooguard.PendingEnter}/{@code PendingLeave}). <b>Writes it follows
 * conservatively</b> (reads pass through until a rebuild that started after the write became
 * visible): HQL/JPQL bulk statements and native SQL on a guarded table (seen by a chained {@code
 * StatementInspector}; a statement whose effect is unknown, such as a stored procedure call,
 * affects every guard), upserts, and inserts of identity-generated ids outside a transaction.
 * Deletes outside a transaction are not applied (a false positive until the next rebuild, never a
 * false negative).
 *
 * <p><b>Id equality.</b> Ids are compared as the database would at worst: strings are folded (case,
 * accents, trailing spaces), so case- or accent-insensitive collations are safe; numbers compare by
 * value. An entity with {@code @SQLRestriction} cannot be guarded.
 *
 * <p>Everything in this package is public API; {@code io.github.cuckooguard.hibernate.internal} is
 * not.
 */
@NullMarked
package io.github.cuckooguard.hibernate;

import org.jspecify.annotations.NullMarked;
