package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Guarded with the settings alone (no annotation values); used by the contract suite. */
@Entity
@GuardedEntity
public class Entry {
  @Id public Long id;

  protected Entry() {}

  public Entry(long id) {
    this.id = id;
  }
}
