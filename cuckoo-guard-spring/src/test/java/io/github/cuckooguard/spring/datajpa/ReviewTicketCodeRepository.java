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
 * Reviewer's repository (R13): a guard keyed by the unique attribute {@code code}, whose column is
 * {@code code_text}; a native update assigns that column, which the check compares only with the
 * word "code" of the key expressions.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "reviewCodes")
public interface ReviewTicketCodeRepository extends Repository<ReviewTicket, Long> {

  @GuardedFind
  Optional<ReviewTicket> findByCode(String code);

  @GuardedAdd(key = "#code")
  @Transactional
  @Modifying
  @Query(
      value = "insert into review_ticket(ticket_no, code_text) values (:number, :code)",
      nativeQuery = true)
  int insert(@Param("number") long number, @Param("code") String code);

  @Transactional
  @Modifying
  @Query(
      value = "update review_ticket set code_text = :code where ticket_no = :number",
      nativeQuery = true)
  int recode(@Param("number") long number, @Param("code") String code);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select t.code from ReviewTicket t")
  List<String> allCodes();
}
