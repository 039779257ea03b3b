package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Guarded; used by the concurrent churn test only. */
@Entity
@GuardedEntity(expectedInsertions = 1_000)
public class Ticket {
  @Id public Long id;
  public int version;

  protected Ticket() {}

  public Ticket(long id, int version) {
    this.id = id;
    this.version = version;
  }
}
