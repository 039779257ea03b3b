package io.github.cuckooguard.hibernate.model;

import jakarta.persistence.Entity;
import java.util.UUID;

@Entity
public class Dog extends Animal {
  protected Dog() {}

  public Dog(UUID id, String name) {
    super(id, name);
  }
}
