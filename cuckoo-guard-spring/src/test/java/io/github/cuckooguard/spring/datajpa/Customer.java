package io.github.cuckooguard.spring.datajpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** The entity of issue 15's report: ids assigned by the application. */
@Entity
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
