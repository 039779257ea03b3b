package io.github.cuckooguard.hibernate.model;

import jakarta.persistence.Entity;
import java.util.UUID;

@Entity
public class Cat extends Animal {
  protected Cat() {}

  public Cat(UUID id, String name) {
    super(id, name);
  }
}
