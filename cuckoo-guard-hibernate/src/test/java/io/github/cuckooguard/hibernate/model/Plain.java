package io.github.cuckooguard.hibernate.model;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Not guarded: finds always reach the database. */
@Entity
public class Plain {
  @Id public Long id;

  protected Plain() {}

  public Plain(long id) {
    this.id = id;
  }
}
