package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/** Inserts whose statement does not begin with the word {@code insert}. */
@CuckooGuarded(name = "items")
public interface ItemCommentedInsertRepository extends GuardedItems {

  @Transactional
  @Modifying
  @Query(
      value = "/* audit */ insert into item(item_no, name) values (:id, :name)",
      nativeQuery = true)
  int audited(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Modifying
  @Query(
      value = "-- imported\ninsert into item(item_no, name) values (:id, :name)",
      nativeQuery = true)
  int imported(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Modifying
  @Query(
      value =
          "with n(id) as (select cast(:id as bigint)) "
              + "insert into item(item_no, name) select id, :name from n",
      nativeQuery = true)
  int fromCommonTableExpression(@Param("id") long id, @Param("name") String name);
}
