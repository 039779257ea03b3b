package io.github.cuckooguard.spring.entity;

import io.github.cuckooguard.hibernate.GuardedEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An entity guarded by cuckoo-guard-hibernate, with ids assigned by the application: Spring Data's
 * {@code save} merges it (a select, then an insert or an update), an upsert from the repository's
 * point of view.
 */
@Entity
@Table(name = "club_member")
@GuardedEntity(expectedInsertions = 10_000)
public class Member {

  @Id private Long id;

  private String name;

  protected Member() {}

  public Member(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
