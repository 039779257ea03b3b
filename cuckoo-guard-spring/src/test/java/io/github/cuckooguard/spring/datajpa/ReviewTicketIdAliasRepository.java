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
 * Reviewer's repository (R13): a guard keyed by the id {@code number}; the update assigns it
 * through Hibernate's {@code id} pseudo-attribute ({@code t.id} names the identifier of an entity
 * without an attribute called {@code id}), a name the check does not count as a key name.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "reviewTickets")
public interface ReviewTicketIdAliasRepository extends Repository<ReviewTicket, Long> {

  @GuardedFind
  Optional<ReviewTicket> findByNumber(Long number);

  @GuardedAdd(key = "#number")
  @Transactional
  @Modifying
  @Query(
      value = "insert into review_ticket(ticket_no, code_text) values (:number, :code)",
      nativeQuery = true)
  int insert(@Param("number") long number, @Param("code") String code);

  @Transactional
  @Modifying
  @Query("update ReviewTicket t set t.id = :newNumber where t.id = :number")
  int renumber(@Param("number") long number, @Param("newNumber") long newNumber);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select t.number from ReviewTicket t")
  List<Long> allNumbers();
}
