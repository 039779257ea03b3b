package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

/** Guarded; sequence-generated ids, so a persisted note has its id before the flush. */
@Entity
@GuardedEntity
public class Note {
  @Id
  @GeneratedValue(strategy = GenerationType.SEQUENCE)
  public Long id;

  public String text;

  protected Note() {}

  public Note(String text) {
    this.text = text;
  }
}
