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
 * A guard keyed by {@code Item.name} through computed key expressions ({@code #p0 + ''}), from
 * which no attribute can be read: WritePathCheckGapsTest expects every unannotated update, here
 * {@code rename} (which assigns the key), to count as a write.
 */
@CuckooGuarded(name = "computedNames")
public interface ItemComputedKeyRepository extends Repository<Item, Long> {

  @GuardedFind(key = "#p0 + ''")
  Optional<Item> findByName(String name);

  @GuardedAdd(key = "#p1 + ''")
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
