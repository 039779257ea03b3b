package io.github.cuckooguard.hibernate;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Guards an entity: {@code Session.find}, {@code get} and {@code byId().load} of an id that does
 * not exist in the database return {@code null} without SQL.
 *
 * <p>Put it on the root entity of an inheritance hierarchy; on a subclass it guards the whole
 * hierarchy, because ids are unique per root entity ({@code find(Animal.class, dogId)} is guarded
 * like {@code find(Dog.class, dogId)}). The attributes override {@link
 * CuckooGuardSettings#EXPECTED_INSERTIONS} and {@link CuckooGuardSettings#FPP}; their default
 * {@code 0} means "use the setting". The other guard settings (thresholds, seed; {@link
 * CuckooGuardSettings#FINGERPRINT_BITS} unless {@code fpp} is given) come from the settings.
 * Invalid values fail the session factory build with a message naming the entity and the accepted
 * range.
 *
 * <p>An entity with {@code @SQLRestriction} cannot be guarded (an update can move a row into the
 * restriction without any insert event); annotating one fails the build.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface GuardedEntity {

  /**
   * Ids the guard holds without a rebuild; {@code 0} (the default) uses {@link
   * CuckooGuardSettings#EXPECTED_INSERTIONS}. Otherwise positive. Renamed from {@code
   * expectedRows}.
   *
   * @return the expected number of ids, or 0
   */
  long expectedInsertions() default 0;

  /**
   * Target false-positive probability; {@code 0} (the default) uses {@link
   * CuckooGuardSettings#FPP}. Otherwise strictly between 0 and 1.
   *
   * @return the target false-positive probability, or 0
   */
  double fpp() default 0;
}
