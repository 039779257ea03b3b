/**
 * Cuckoo Guard for Hibernate ORM: an {@code Integrator} keeps a cuckoo guard per entity in step
 * with the ids in the database, so that a find of a missing id returns null without SQL. Only the
 * {@code io.github.cuckooguard.hibernate} package is API; its {@code internal} package is not
 * exported. Hibernate finds the integrator through {@code ServiceLoader}: on the module path by the
 * {@code provides} below, on the class path by {@code META-INF/services}.
 */
module io.github.cuckooguard.hibernate {
  // HibernateCuckooGuards.of takes a SessionFactory. The Maven scope of hibernate-core is provided
  // (the application chooses its version), but the module cannot work without it.
  requires transitive io.github.cuckooguard.core;
  requires transitive org.hibernate.orm.core;
  requires java.naming; // SessionFactory extends javax.naming.Referenceable
  requires java.sql;
  requires static org.jspecify;

  // Optional: only the hibernate.cuckoo.cluster.* settings use them (detected by class name).
  requires static io.github.cuckooguard.cluster.hazelcast;
  requires static com.hazelcast.core;

  exports io.github.cuckooguard.hibernate;

  provides org.hibernate.integrator.spi.Integrator with
      io.github.cuckooguard.hibernate.internal.CuckooGuardIntegrator;
  provides org.hibernate.boot.spi.SessionFactoryBuilderFactory with
      io.github.cuckooguard.hibernate.internal.GuardSessionFactoryBuilderFactory;
}
