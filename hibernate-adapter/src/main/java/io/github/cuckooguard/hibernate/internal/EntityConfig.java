package io.github.cuckooguard.hibernate.internal;

/**
 * What the boot model says about one guarded root entity, validated.
 *
 * @param rootEntityName the entity name of the root of the hierarchy
 * @param expectedRows initial size of its guards
 * @param fpp target false-positive probability of its guards
 */
record EntityConfig(String rootEntityName, long expectedRows, double fpp) {}
