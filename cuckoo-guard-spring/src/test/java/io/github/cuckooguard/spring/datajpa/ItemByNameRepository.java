package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * A guard keyed by another unique attribute than the id, {@code name}: an update that assigns the
 * name changes the key although it leaves the id alone.
 */
@CuckooGuarded(name = "itemNames")
public interface ItemByNameRepository extends Repository<Item, Long> {

  @GuardedFind
  Optional<Item> findByName(String name);

  @GuardedAdd(key = "#name")
  @Transactional
  @Modifying
  @Query(value = "insert into item(item_no, name) values (:id, :name)", nativeQuery = true)
  int insert(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Modifying
  @Query("update Item i set i.name = :name where i.id = :id")
  int rename(@Param("id") long id, @Param("name") String name);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select i.name from Item i")
  List<String> allNames();
}
