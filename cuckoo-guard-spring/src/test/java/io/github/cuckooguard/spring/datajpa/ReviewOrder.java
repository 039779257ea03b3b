package io.github.cuckooguard.spring.datajpa;

import jakarta.persistence.AttributeOverride;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/**
 * Reviewer's entity (R13): the id of {@link ReviewBaseEntity}, stored in the column {@code
 * order_no} by an {@code @AttributeOverride} on the entity class (the usual way to name a mapped
 * superclass's id column per table).
 */
@Entity
@Table(name = "review_order")
@AttributeOverride(name = "id", column = @Column(name = "order_no"))
public class ReviewOrder extends ReviewBaseEntity {

  /** The DDL of the table. */
  public static final String DDL =
      "create table if not exists review_order(order_no bigint primary key, label varchar(255))";

  private String label;

  protected ReviewOrder() {}

  public ReviewOrder(long id, String label) {
    this.id = id;
    this.label = label;
  }

  public String getLabel() {
    return label;
  }
}
