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
 * Reviewer's repository (R13): a native update assigns {@code order_no}, the id's column named by
 * the entity's {@code @AttributeOverride}, which RepositoryDomain does not read for a plain id.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "reviewOrders")
public interface ReviewOrderRepository extends Repository<ReviewOrder, Long> {

  @GuardedFind
  Optional<ReviewOrder> findById(Long id);

  @GuardedAdd(key = "#id")
  @Transactional
  @Modifying
  @Query(
      value = "insert into review_order(order_no, label) values (:id, :label)",
      nativeQuery = true)
  int insert(@Param("id") long id, @Param("label") String label);

  @Transactional
  @Modifying
  @Query(
      value = "update review_order set order_no = :newId where order_no = :id",
      nativeQuery = true)
  int renumber(@Param("id") long id, @Param("newId") long newId);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select o.id from ReviewOrder o")
  List<Long> allIds();
}
