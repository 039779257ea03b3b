package io.github.cuckooguard.samples.db;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An article of the catalogue. {@link GuardedEntity} asks the Hibernate integration for a guard of
 * the ids that exist, so that {@code find} of any other id returns null without SQL; its size and
 * fpp come from the {@code hibernate.cuckoo.*} settings of {@link CatalogConfig}.
 */
@Entity
@Table(name = "article")
@GuardedEntity
public class Article {

  @Id private Long id;

  private String title;

  protected Article() {}

  Article(long id) {
    this.id = id;
    this.title = titleOf(id);
  }

  /** The title every article of this catalogue has, so that an answer can be checked. */
  static String titleOf(long id) {
    return "Article " + id;
  }

  /** The id. */
  public long id() {
    return id;
  }

  /** The title. */
  public String title() {
    return title;
  }
}
