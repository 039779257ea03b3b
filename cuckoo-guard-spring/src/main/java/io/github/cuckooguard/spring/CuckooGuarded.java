package io.github.cuckooguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Declares the guard that the annotated methods of a repository use, and makes it a bean (or, with
 * {@link #entity()}, names the cuckoo-guard-hibernate's guard of a JPA entity): with {@link
 * EnableCuckooGuard}, every name declared here becomes a singleton {@link
 * io.github.cuckooguard.CuckooGuard CuckooGuard&lt;Object&gt;} bean of that name, which can be
 * injected ({@code @Qualifier("users") CuckooGuard<Object> users}) and asked for {@link
 * io.github.cuckooguard.CuckooGuard#stats() stats()}. It plays the part {@code @CacheConfig} plays
 * for {@code @Cacheable}: the method annotations name no guard and use this one.
 *
 * <p>Put it on a class-based repository or on a Spring Data repository interface. Several
 * repositories may declare the same name (they then share one guard) if they do not configure it
 * differently. If the context already holds a bean of that name (a {@code @Bean CuckooGuard<Long>
 * users()} you built yourself, for example with a custom funnel), that bean is used, and then only
 * {@link #name()} may be set here. Keys are then converted to the bean's declared key type (checked
 * when the context starts). Such a guard may have any {@link io.github.cuckooguard.KeySource} that
 * is a plain scan of the store: the annotated writes follow the core's write protocol, so the guard
 * keeps the writes in flight itself.
 *
 * <p><b>Where the keys come from.</b> The guard answers "definitely absent" only for keys it knows
 * all about, so when the application starts it must learn the keys that already exist: from a
 * {@link io.github.cuckooguard.KeySource} bean named by {@link #keySource()}, or from a repository
 * method annotated with {@link GuardKeySource}. That source is scanned once the application context
 * has been refreshed (the warm-up, logged with its progress) and again whenever the guard rebuilds
 * its filter; finders are not short-circuited until the warm-up ends. Only a store that is known to
 * be empty at every start may do without a source ({@link #startsEmpty()}); otherwise the context
 * fails to start.
 *
 * <p><b>Spring Data repositories.</b> With a guard of its own, every write of the repository must
 * be one the guard follows: a {@link GuardedAdd} insert or a {@link GuardedRemove} delete. The
 * context fails to start, naming the methods, if a guarded Spring Data repository has any other
 * write: the inherited {@code save}, {@code saveAll} and {@code delete…} of {@code
 * CrudRepository}/{@code JpaRepository} (an upsert that may assign the id after the call, and
 * deletes that ignore a missing id: they cannot be followed, so extend {@code Repository} instead),
 * a derived {@code deleteBy…}/{@code removeBy…}, a {@code @Procedure}, or any query that may add or
 * remove a key. Only updates that provably assign no key are allowed without an annotation: the
 * query, read without its comments and string literals, is an {@code update} whose {@code set}
 * clause names neither the domain type's {@code @Id} attribute nor its column (nor a name the
 * guard's keys use); a {@code @Modifying} method without {@code @Query} is read through its named
 * query ({@code @NamedQuery}/{@code @NamedNativeQuery} on the domain type, or {@code
 * META-INF/jpa-named-queries.properties}). What the check cannot read counts as a write. Each
 * method is matched by its parameter types: an unannotated overload of an annotated insert is a
 * write of its own. For a Hibernate entity, {@link #entity()} follows {@code save} and {@code
 * delete} instead.
 *
 * <p><b>JPA entities.</b> For a repository of a Hibernate entity guarded by cuckoo-guard's
 * cuckoo-guard-hibernate ({@code @GuardedEntity}), name the entity instead of a guard:
 * {@code @CuckooGuarded(entity = User.class)}. The repository's {@link GuardedFind} methods then
 * ask that entity guard, which follows inserts and committed deletes at Hibernate's event level, so
 * the repository needs no {@link GuardedAdd}, {@link GuardedRemove} or key source, and Spring
 * Data's {@code save} (an upsert) and {@code deleteById} (silent on a missing id) are followed
 * exactly. See {@link #entity()}.
 *
 * <p><b>Keys.</b> A guard declared here accepts {@link Long}, {@link Integer}, {@link Short},
 * {@link Byte} (one key space: {@code 7} and {@code 7L} are the same key), {@link CharSequence},
 * {@link java.util.UUID}, {@code byte[]} and enum keys. Declare your own guard bean for other key
 * types. Keys are compared as a database compares them, not by {@code equals}: text keys (strings,
 * enum names, UUIDs in their text form) are hashed without trailing spaces and with case, accents
 * and compatibility forms folded, so a {@code CHAR(n)} key scanned padded, or one added as {@code
 * "AB"} to a case-insensitive column, is found by {@code "ab"} (keys that differ only so share a
 * fingerprint: a false positive at worst). Numbers and text are kept apart, and a database converts
 * between them ({@code where id = '12'}): the start fails for a finder or a remove whose declared
 * key type is of the other kind than the guard's adds and key source, and a key of a kind the guard
 * was not given (alone) passes through, unguarded (logged once per method). Give each guard keys of
 * one type.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface CuckooGuarded {

  /** Marks {@link #expectedInsertions()} and {@link #fpp()} as not set. */
  long UNSET = -1;

  /** Alias for {@link #name()}. */
  @AliasFor("name")
  String value() default "";

  /**
   * The name of the guard, which is also its bean name. Required, unless {@link #entity()} is set.
   */
  @AliasFor("value")
  String name() default "";

  /**
   * How many keys the guard holds without a rebuild ({@link
   * io.github.cuckooguard.GuardSpec.Builder#expectedInsertions}); unset ({@value #UNSET}) means
   * {@value io.github.cuckooguard.AbstractFilterBuilder#DEFAULT_EXPECTED_INSERTIONS}. The guard
   * grows and rebuilds beyond it.
   */
  long expectedInsertions() default UNSET;

  /**
   * The target false-positive probability ({@link io.github.cuckooguard.GuardSpec.Builder#fpp});
   * unset ({@value #UNSET}) means {@value io.github.cuckooguard.AbstractFilterBuilder#DEFAULT_FPP}.
   */
  double fpp() default UNSET;

  /**
   * The name of a {@link io.github.cuckooguard.GuardSpec} bean holding every setting of the guard
   * (fingerprint width, seed, expansion, rebuild triggers as well as capacity and fpp), instead of
   * {@link #expectedInsertions()} and {@link #fpp()}, which must then be left unset. Empty means
   * none.
   */
  String spec() default "";

  /**
   * The name of a {@link io.github.cuckooguard.KeySource} bean that emits every key of the tracked
   * set (for a table: {@code select id from …}). It is resolved lazily, when the first scan starts,
   * so it may depend on the repository this annotation is on. Empty means none; a {@link
   * GuardKeySource} method can be used instead.
   */
  String keySource() default "";

  /**
   * Declares that the tracked set is empty whenever the application starts (an in-memory store, a
   * database created empty at start-up), so that the guard may short-circuit from the first call
   * without a warm-up scan. Leave it {@code false} for a persistent store.
   */
  boolean startsEmpty() default false;

  /**
   * A JPA entity guarded by cuckoo-guard's cuckoo-guard-hibernate, whose guard the repository's
   * {@link GuardedFind} methods (those that name no other guard) then use; {@code void.class}, the
   * default, means none. The key of such a finder must be the entity's id.
   *
   * <ul>
   *   <li>The guard is the one cuckoo-guard-hibernate keeps for the entity's hierarchy in the
   *       {@code EntityManagerFactory} (or Hibernate {@code SessionFactory}) bean that maps the
   *       entity, sized by {@code @GuardedEntity} and the {@code hibernate.cuckoo.*} settings,
   *       warmed up and rebuilt by Hibernate's own id scan. No guard bean is created, and {@link
   *       #name()}, {@link #expectedInsertions()}, {@link #fpp()}, {@link #spec()}, {@link
   *       #keySource()}, {@link #startsEmpty()} and {@link GuardKeySource} must be left unset.
   *   <li>Writes are followed by Hibernate, so {@link GuardedAdd} and {@link GuardedRemove} that
   *       name no guard of their own fail the start of the context (also for a repository that is
   *       never injected or created lazily): they would count each write twice.
   *   <li>A definite miss returns the finder's "nothing found" value without calling it: no
   *       transaction, no connection, no SQL, also for derived finders by id that Hibernate could
   *       not short-circuit. When an {@code EntityManager} of that factory is bound to the thread
   *       (inside a transaction, or with open-EntityManager-in-view) the finder always runs, since
   *       its persistence context may hold entities not flushed yet; {@code findById} is then still
   *       answered without SQL by Hibernate, which consults that context first.
   *   <li>In a multi-tenant factory the guard of the tenant that the factory's {@code
   *       CurrentTenantIdentifierResolver} names is asked, the tenant the finder's own session
   *       would get.
   * </ul>
   *
   * <p>The context fails to start, with a message saying what to do, if cuckoo-guard-hibernate is
   * not on the class path, if no single {@code EntityManagerFactory} bean maps the entity, or if
   * the entity is not guarded there ({@code hibernate.cuckoo.enabled} is false, or the entity is
   * neither annotated with {@code @GuardedEntity} nor listed in {@code hibernate.cuckoo.entities}).
   */
  Class<?> entity() default void.class;
}
