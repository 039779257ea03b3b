package io.github.cuckooguard.hibernate.internal;

import io.github.cuckooguard.GuardSpec;

/**
 * What the boot model says about one guarded root entity, validated.
 *
 * @param rootEntityName the entity name of the root of the hierarchy
 * @param spec the settings of its guards
 */
record EntityConfig(String rootEntityName, GuardSpec spec) {}
