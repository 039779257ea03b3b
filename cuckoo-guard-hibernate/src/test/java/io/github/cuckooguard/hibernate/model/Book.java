package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Guarded by annotation; assigned {@code long} ids. */
@Entity
@GuardedEntity(expectedInsertions = 10_000, fpp = 0.01)
public class Book {
  @Id public Long id;
  public String title;

  protected Book() {}

  public Book(long id, String title) {
    this.id = id;
    this.title = title;
  }
}
