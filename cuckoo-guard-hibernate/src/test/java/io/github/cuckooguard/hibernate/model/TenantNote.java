package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import org.hibernate.annotations.TenantId;

/** Guarded entity of a discriminator-based multi-tenant model. */
@Entity
@GuardedEntity
public class TenantNote {
  @Id public Long id;
  @TenantId public String tenant;
  public String text;

  protected TenantNote() {}

  public TenantNote(long id, String text) {
    this.id = id;
    this.text = text;
  }
}
