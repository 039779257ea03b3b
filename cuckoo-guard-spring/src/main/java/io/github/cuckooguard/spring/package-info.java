/**
 * Spring integration: {@link io.github.cuckooguard.spring.EnableCuckooGuard} and the annotations
 * that put a {@link io.github.cuckooguard.CuckooGuard} in front of repository methods.
 *
 * <pre>{@code
 * @Configuration
 * @EnableCuckooGuard
 * class AppConfig { … }
 *
 * @Repository
 * @CuckooGuarded(name = "users", expectedInsertions = 1_000_000, fpp = 0.001, keySource = "userIds")
 * class UserRepository {
 *   @GuardedFind User findById(long id) { … }                  // definite miss: null, no call
 *   @GuardedFind Optional<User> find(@GuardKey long id) { … }  // definite miss: Optional.empty()
 *   @GuardedAdd(key = "#user.id") boolean insert(User user) { … }   // true = key created
 *   @GuardedRemove(key = "#id") boolean deleteById(long id) { … }   // true = key removed
 * }
 *
 * @CuckooGuarded(entity = User.class)   // a JPA entity guarded by cuckoo-guard-hibernate
 * interface UserJpaRepository extends JpaRepository<User, Long> {
 *   @Override @GuardedFind Optional<User> findById(Long id);   // no transaction on a definite miss
 *   @GuardedFind Optional<User> findOneById(Long id);           // derived finders by id too
 * }                                                             // save, deleteById: Hibernate follows them
 * }</pre>
 *
 * <p>What the guard tracks is the set of keys for which the source of truth (a table, a store)
 * holds something. It stays free of false negatives because of three rules, applied by the
 * interceptor:
 *
 * <ul>
 *   <li>a key enters <b>before</b> the write of an {@link io.github.cuckooguard.spring.GuardedAdd}
 *       method, and the enter is aborted when the surrounding transaction rolls back or the method
 *       reports that it created nothing;
 *   <li>a key leaves <b>after</b> the transaction that removed it commits (at once when no
 *       transaction is active), and only when the {@link
 *       io.github.cuckooguard.spring.GuardedRemove} method reports that it removed something;
 *   <li>both are the core's write protocol ({@link io.github.cuckooguard.CuckooGuard#beginEnter},
 *       {@link io.github.cuckooguard.CuckooGuard#beginLeave}), so the guard keeps the writes in
 *       flight across rebuilds and a key scan is a plain query of what exists;
 *   <li>until the warm-up scan of the guard's key source ends, and whenever the guard is in doubt,
 *       finders are not short-circuited.
 * </ul>
 *
 * <p>A repository declared with {@link io.github.cuckooguard.spring.CuckooGuarded#entity()} uses no
 * guard of its own: its finders ask the guard that cuckoo-guard's cuckoo-guard-hibernate keeps for
 * the entity, which applies these rules at Hibernate's event level. cuckoo-guard-hibernate is an
 * optional dependency, needed only then.
 *
 * <p>Everything in this package is public API; {@code io.github.cuckooguard.spring.internal} is
 * not.
 */
@NullMarked
package io.github.cuckooguard.spring;

import org.jspecify.annotations.NullMarked;
