package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;
import java.util.UUID;

/** Root of a joined hierarchy with UUID ids; the guard is per root. */
@Entity
@Inheritance(strategy = InheritanceType.JOINED)
@GuardedEntity
public abstract class Animal {
  @Id public UUID id;
  public String name;

  protected Animal() {}

  protected Animal(UUID id, String name) {
    this.id = id;
    this.name = name;
  }
}
