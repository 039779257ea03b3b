package io.github.cuckooguard.spring.internal;

/**
 * The entity guards of cuckoo-guard-hibernate, as the interceptor asks them for the finders of a
 * repository declared with {@code @CuckooGuarded(entity = …)}. Registered as the bean {@value
 * #BEAN_NAME} by {@link GuardBeanRegistrar} when such a declaration exists; its implementation,
 * {@link HibernateEntityGuards}, is the only class of this package that uses Hibernate types, and
 * is loaded only when cuckoo-guard-hibernate is on the class path. Thread-safe.
 */
interface EntityGuardLookup {

  /** The bean name of the lookup. */
  String BEAN_NAME = "io.github.cuckooguard.spring.internalEntityGuards";

  /**
   * The guard of {@code entity}, resolved against the context's {@code EntityManagerFactory} beans
   * on first use (and for every declared entity once the singletons exist).
   *
   * @param where the annotated method, for the message
   * @throws IllegalStateException naming {@code where} if no {@code @CuckooGuarded(entity = …)}
   *     declares the entity
   */
  EntityGuard guardOf(Class<?> entity, String where);

  /** The guard of one entity. */
  interface EntityGuard {

    /**
     * False if a finder of the entity by {@code id} definitely finds nothing now, so that it need
     * not run; true if it might find a row, and whenever the finder must run anyway (an {@code
     * EntityManager} of the factory is bound to the thread and may hold unflushed entities; the
     * guard warms up or cannot tell).
     *
     * @throws IllegalStateException if the entity's factory cannot be used (see {@code
     *     CuckooGuarded#entity()}) or names no tenant
     */
    boolean mightContain(Object id);

    /** For messages: {@code entity com.example.User}. */
    String describe();
  }
}
