package io.github.cuckooguard.spring.internal;

import java.util.Map;

/**
 * Settings of {@code @CuckooGuarded(name = …)} guards that come from outside the annotation (the
 * Spring Boot starter binds them from the {@code Environment}). When the context holds a bean of
 * this type, each declared guard asks it for its settings when the guard is created; they override
 * the annotation's {@code expectedInsertions} and {@code fpp}.
 */
@FunctionalInterface
public interface GuardSettingsProvider {

  /**
   * The settings of the guard named {@code guardName}, keyed by {@link
   * io.github.cuckooguard.GuardSpec#PROPERTY_NAMES} (kebab-case, snake_case or camelCase), values
   * as strings; empty if none. The values are checked by {@link
   * io.github.cuckooguard.GuardSpec#parse}.
   *
   * @param guardName the guard's (and bean's) name
   */
  Map<String, String> settings(String guardName);

  /**
   * Where the settings of {@code guardName} come from, for error messages, e.g. a property prefix.
   */
  default String describe(String guardName) {
    return "settings of guard '" + guardName + "'";
  }
}
