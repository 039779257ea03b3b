package io.github.cuckooguard.benchmarks.integration;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/**
 * The entity of {@link HibernateFindBenchmark}: an assigned {@code Long} id and a short title.
 * Guarded by annotation; whether the guard is on is decided per run by {@code
 * hibernate.cuckoo.enabled}.
 */
@Entity
@GuardedEntity
public class Book {

  /** The primary key, assigned by the benchmark. */
  @Id public Long id;

  /** A short text, so that a found row has a column to read besides its id. */
  public String title;

  /** For Hibernate. */
  protected Book() {}

  /** A book with the given id and title. */
  public Book(long id, String title) {
    this.id = id;
    this.title = title;
  }
}
