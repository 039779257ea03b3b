package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * Writes the check allows: updates that do not assign the key (JPQL, native, the named query
 * "Item.relabel", string literals and comments that mention the key or other statements), and
 * Spring Data's generic {@code save(S)} re-declared as an insert with {@code @GuardedAdd} (its
 * bridge method {@code save(Object)} included).
 */
@CuckooGuarded(name = "items")
public interface ItemRepository extends GuardedItems {

  @Transactional
  @Modifying
  @Query("update Item i set i.name = :name where i.id = :id")
  int rename(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Modifying
  @Query(
      value =
          "update item /* not item_no */ set name = concat(:name, ' (id = 1; insert)') "
              + "-- delete\n where item_no = :id",
      nativeQuery = true)
  int renameNative(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Modifying
  int relabel(@Param("id") long id, @Param("name") String name);

  @GuardedAdd(key = "#entity.id")
  @Transactional
  <S extends Item> S save(S entity);
}
