package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.NoRepositoryBean;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * The followed part of every {@link Item} repository of UnfollowedModifyingTest: a guarded finder,
 * a guarded insert and delete, and the key scan. Each sub-interface (guarded by "items") adds one
 * kind of write the guard does not see.
 */
@NoRepositoryBean
public interface GuardedItems extends Repository<Item, Long> {

  @GuardedFind
  Optional<Item> findById(Long id);

  @GuardedAdd(key = "#id")
  @Transactional
  @Modifying
  @Query(value = "insert into item(item_no, name) values (:id, :name)", nativeQuery = true)
  int insert(@Param("id") long id, @Param("name") String name);

  @GuardedRemove(key = "#id")
  @Transactional
  @Modifying
  @Query("delete from Item i where i.id = :id")
  int delete(@Param("id") long id);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select i.id from Item i")
  List<Long> allIds();
}
