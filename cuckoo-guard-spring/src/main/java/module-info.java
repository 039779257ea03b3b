/**
 * Cuckoo Guard for Spring: {@code @EnableCuckooGuard} and the guard annotations make annotated
 * repository finders skip definite misses and keep the guard in step with annotated adds and
 * removes. Only the {@code io.github.cuckooguard.spring} package is API; its {@code internal}
 * package holds the infrastructure beans, which Spring creates reflectively.
 */
module io.github.cuckooguard.spring {
  // The annotations are meta-annotated with Spring's (@Import, @AliasFor).
  requires transitive io.github.cuckooguard.core;
  requires transitive spring.context;
  requires spring.core;
  requires spring.beans;
  requires spring.aop;
  requires spring.expression;
  requires java.desktop; // java.beans.PropertyDescriptor, for bean property paths in keys
  requires static org.jspecify;

  // Optional, each detected by class presence: transactions, and the Hibernate entity guards
  // that @CuckooGuarded(entity = ...) delegates to.
  requires static spring.tx;
  requires static io.github.cuckooguard.hibernate;
  requires static org.hibernate.orm.core;
  requires static jakarta.persistence;
  // Optional: a HazelcastInstance bean makes every guard of the context join its group on that
  // cluster (through the cluster module); detected by class presence.
  requires static com.hazelcast.core;
  requires static io.github.cuckooguard.cluster.hazelcast;

  exports io.github.cuckooguard.spring;

  // Not exported (no code can compile against it), but open to the Spring modules that create and
  // call its infrastructure beans reflectively: the import selector, configuration, advisor and
  // interceptor, and the SpEL root objects of guard keys.
  opens io.github.cuckooguard.spring.internal to
      spring.core,
      spring.beans,
      spring.context,
      spring.aop,
      spring.expression;
}
