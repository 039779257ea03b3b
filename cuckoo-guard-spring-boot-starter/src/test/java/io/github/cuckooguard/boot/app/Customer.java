package io.github.cuckooguard.boot.app;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity guarded by cuckoo-guard-hibernate, ids assigned by the application. */
@Entity
@GuardedEntity
public class Customer {

  @Id private Long id;

  private String name;

  protected Customer() {}

  public Customer(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
