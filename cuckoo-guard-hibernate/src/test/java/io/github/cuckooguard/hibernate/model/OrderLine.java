package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import java.util.Objects;

/** Guarded entity with a composite id. */
@Entity
@GuardedEntity
public class OrderLine {
  @EmbeddedId public Key id;
  public int quantity;

  protected OrderLine() {}

  public OrderLine(long orderId, int line, int quantity) {
    this.id = new Key(orderId, line);
    this.quantity = quantity;
  }

  /** The composite id. */
  @Embeddable
  public static class Key {
    public long orderId;
    public int line;

    protected Key() {}

    public Key(long orderId, int line) {
      this.orderId = orderId;
      this.line = line;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.orderId == orderId && k.line == line;
    }

    @Override
    public int hashCode() {
      return Objects.hash(orderId, line);
    }
  }
}
