package io.github.cuckooguard.hibernate.model;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Not annotated: guarded through the hibernate.cuckoo.entities setting; string ids. */
@Entity
@Table(name = "ledger")
public class Ledger {
  @Id public String code;
  public long amount;

  protected Ledger() {}

  public Ledger(String code, long amount) {
    this.code = code;
    this.amount = amount;
  }
}
