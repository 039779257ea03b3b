package io.github.cuckooguard.spring.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity with an id assigned by the application (known before the insert). */
@Entity
public class Account {

  @Id private Long id;

  private String name;

  protected Account() {}

  public Account(Long id, String name) {
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
