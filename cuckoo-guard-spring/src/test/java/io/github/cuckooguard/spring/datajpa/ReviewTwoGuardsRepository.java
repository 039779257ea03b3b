package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedAdd;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reviewer's repository (R13): guarded by "items" (its findById), with an insert followed by
 * another guard, "reviewItemNames". WritePathCheck.followed counts any {@code @GuardedAdd} as
 * followed, whatever guard it names, so this insert passes for "items", which never hears of it.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "items")
public interface ReviewTwoGuardsRepository extends GuardedItems {

  @GuardedAdd(guard = "reviewItemNames", key = "#name")
  @Transactional
  @Modifying
  @Query(value = "insert into item(item_no, name) values (:id, :name)", nativeQuery = true)
  int insertNamed(@Param("id") long id, @Param("name") String name);
}
