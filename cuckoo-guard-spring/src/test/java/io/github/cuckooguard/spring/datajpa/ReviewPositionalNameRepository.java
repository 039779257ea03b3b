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
 * Reviewer's repository (R13): ItemByNameRepository with the keys written positionally ({@code
 * #p0}, {@code #p1}, a documented form of GuardedFind#key): the guard is keyed by {@code name}, but
 * no key expression spells the word "name", so {@code rename} (which assigns it) is not read as a
 * key change.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "reviewNames")
public interface ReviewPositionalNameRepository extends Repository<Item, Long> {

  @GuardedFind(key = "#p0")
  Optional<Item> findByName(String name);

  @GuardedAdd(key = "#p1")
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
