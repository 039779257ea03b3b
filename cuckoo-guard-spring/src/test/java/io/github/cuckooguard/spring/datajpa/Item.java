package io.github.cuckooguard.spring.datajpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedNativeQuery;
import jakarta.persistence.NamedQuery;

/**
 * The entity of the unfollowed {@code @Modifying} writes (UnfollowedModifyingTest): ids assigned by
 * the application, stored in the column {@code item_no} (so a native query names the key by its
 * column, a JPQL query by its attribute {@code id}). Its named queries are what Spring Data runs
 * for a {@code @Modifying} repository method {@code register}, {@code copy} or {@code relabel}
 * without {@code @Query}; one more, {@code Item.restore}, is added in code by {@link
 * ItemJpaConfig}.
 */
@Entity
@NamedNativeQuery(
    name = "Item.register",
    query = "insert into item(item_no, name) values (:id, :name)")
@NamedQuery(
    name = "Item.copy",
    query = "insert into Item(id, name) select i.id + :offset, i.name from Item i where i.id = :id")
@NamedQuery(name = "Item.relabel", query = "update Item i set i.name = :name where i.id = :id")
public class Item {

  @Id
  @Column(name = "item_no")
  private Long id;

  private String name;

  protected Item() {}

  public Item(long id, String name) {
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
