package io.github.cuckooguard.spring.datajpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * Reviewer's entity (R13): an id attribute that is not called {@code id} ({@code number}, column
 * {@code ticket_no}) and a unique attribute {@code code} stored in a column of another name ({@code
 * code_text}). Table created by the test.
 */
@Entity
@Table(name = "review_ticket")
public class ReviewTicket {

  /** The DDL of the table. */
  public static final String DDL =
      "create table if not exists review_ticket(ticket_no bigint primary key,"
          + " code_text varchar(255) unique)";

  @Id
  @Column(name = "ticket_no")
  private Long number;

  @Column(name = "code_text")
  private String code;

  protected ReviewTicket() {}

  public ReviewTicket(long number, String code) {
    this.number = number;
    this.code = code;
  }

  public Long getNumber() {
    return number;
  }

  public String getCode() {
    return code;
  }
}
