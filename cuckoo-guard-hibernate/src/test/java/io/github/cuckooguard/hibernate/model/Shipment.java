package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Guarded, assigned {@code long} ids; sized for the cluster test's pairs. */
@Entity
@GuardedEntity(expectedInsertions = 300_000, fpp = 0.01)
public class Shipment {
  @Id public Long id;
  public String destination;

  protected Shipment() {}

  public Shipment(long id, String destination) {
    this.id = id;
    this.destination = destination;
  }
}
