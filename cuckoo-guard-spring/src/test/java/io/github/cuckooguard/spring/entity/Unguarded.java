package io.github.cuckooguard.spring.entity;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A mapped entity that cuckoo-guard-hibernate does not guard (for the startup-failure tests). */
@Entity
public class Unguarded {

  @Id private Long id;

  protected Unguarded() {}
}
