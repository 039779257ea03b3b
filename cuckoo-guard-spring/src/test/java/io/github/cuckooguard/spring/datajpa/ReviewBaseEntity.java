package io.github.cuckooguard.spring.datajpa;

import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/** Reviewer's mapped superclass (R13): the id attribute {@code id}, column named by subclasses. */
@MappedSuperclass
public abstract class ReviewBaseEntity {

  @Id protected Long id;

  public Long getId() {
    return id;
  }
}
