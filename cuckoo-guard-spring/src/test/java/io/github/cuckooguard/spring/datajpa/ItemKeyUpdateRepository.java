package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * Updates that change the key: the row keeps existing under a new id the guard never saw, so its
 * finder answers "absent" for it.
 */
@CuckooGuarded(name = "items")
public interface ItemKeyUpdateRepository extends GuardedItems {

  @Transactional
  @Modifying
  @Query("update Item i set i.id = :newId where i.id = :id")
  int renumber(@Param("id") long id, @Param("newId") long newId);

  /** The key by its column, upper case, after a column that is not the key. */
  @Transactional
  @Modifying
  @Query(
      value = "update item set name = :name, ITEM_NO = :newId where item_no = :id",
      nativeQuery = true)
  int renumberNative(@Param("id") long id, @Param("name") String name, @Param("newId") long newId);
}
