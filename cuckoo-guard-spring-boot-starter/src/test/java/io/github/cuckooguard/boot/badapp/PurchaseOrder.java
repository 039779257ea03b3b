package io.github.cuckooguard.boot.badapp;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity of the misconfigured application. */
@Entity
public class PurchaseOrder {

  @Id private Long id;

  protected PurchaseOrder() {}

  public Long getId() {
    return id;
  }
}
