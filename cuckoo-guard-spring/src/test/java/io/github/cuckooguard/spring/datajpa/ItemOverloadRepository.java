package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * An unannotated overload of the guarded {@code insert(long, String)}: same name, same number of
 * parameters, other types.
 */
@CuckooGuarded(name = "items")
public interface ItemOverloadRepository extends GuardedItems {

  @Transactional
  @Modifying
  @Query(value = "insert into item(item_no, name) values (:id, :name)", nativeQuery = true)
  int insert(@Param("name") String name, @Param("id") long id);
}
