package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reviewer's repository (R13): a key update behind a select ({@code select … from final table
 * (update …)} in H2; in PostgreSQL {@code with m as (update … returning …) select …}). The method
 * is not {@code @Modifying}, so QueryWrites only looks for insert/delete/merge… words, and {@code
 * update} is not one of them.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "items")
public interface ReviewSelectUpdateRepository extends GuardedItems {

  @Transactional
  @Query(
      value =
          "select item_no from final table (update item set item_no = :newId where item_no = :id)",
      nativeQuery = true)
  Long move(@Param("id") long id, @Param("newId") long newId);
}
