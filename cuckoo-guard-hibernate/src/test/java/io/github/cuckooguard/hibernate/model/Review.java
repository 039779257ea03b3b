package io.github.cuckooguard.hibernate.model;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.ManyToOne;
import java.util.Objects;

/** Guarded entity whose embedded id contains an association (a key-many-to-one). */
@Entity
@GuardedEntity
public class Review {
  @EmbeddedId public Key id;
  public String text;

  protected Review() {}

  public Review(Book book, int number, String text) {
    this.id = new Key(book, number);
    this.text = text;
  }

  /** The id: the reviewed book and the review's number. */
  @Embeddable
  public static class Key {
    @ManyToOne public Book book;
    public int number;

    protected Key() {}

    public Key(Book book, int number) {
      this.book = book;
      this.number = number;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Objects.equals(k.book.id, book.id) && k.number == number;
    }

    @Override
    public int hashCode() {
      return Objects.hash(book.id, number);
    }
  }
}
