package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import java.util.List;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * The repository WritePathCheckGapsTest expects to start after the R13 fixes: a select that locks
 * ({@code for update}, not a write), a re-declared base class read ({@code findAll}), a derived
 * count, a finder of a generic base interface keyed positionally ({@code #root.args[0]}, its
 * parameter {@code ID id} resolved to {@code Long}) next to an update that assigns no key, and an
 * insert annotated with the repository's own guard by name.
 */
@CuckooGuarded(name = "items")
public interface ItemStillReadsRepository extends GuardedItems, ItemGenericFinder<Item, Long> {

  @Transactional
  @Query(value = "select name from item where item_no = :id for update", nativeQuery = true)
  String lockedName(@Param("id") long id);

  @Transactional(readOnly = true)
  List<Item> findAll();

  @Transactional(readOnly = true)
  long countByName(String name);

  @Transactional
  @Modifying
  @Query("update Item i set i.name = :name where i.id = :id")
  int rename(@Param("id") long id, @Param("name") String name);

  @GuardedAdd(guard = "items", key = "#id")
  @Transactional
  @Modifying
  @Query(value = "insert into item(item_no, name) values (:id, :name)", nativeQuery = true)
  int add(@Param("id") long id, @Param("name") String name);
}
