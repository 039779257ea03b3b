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
 * Reviewer R2's repository (session 13): the guard {@code r2Codes} is keyed by {@code
 * ReviewTicket.code} (column {@code code_text}), but every key expression names a parameter called
 * {@code value}, not {@code code}. WritePathCheck takes the parameter's name for the key's
 * attribute, so its key names are {@code value} (and the id's), and the native update of {@code
 * code_text} in {@link #recode} is let through as an update that assigns no key.
 */
@CuckooGuarded(name = "r2Codes")
public interface R2TicketValueRepository extends Repository<ReviewTicket, Long> {

  @GuardedFind(key = "#value")
  Optional<ReviewTicket> findByCode(@Param("value") String value);

  @GuardedAdd(key = "#value")
  @Transactional
  @Modifying
  @Query(
      value = "insert into review_ticket(ticket_no, code_text) values (:number, :value)",
      nativeQuery = true)
  int insert(@Param("number") long number, @Param("value") String value);

  @Transactional
  @Modifying
  @Query(
      value = "update review_ticket set code_text = :value where ticket_no = :number",
      nativeQuery = true)
  int recode(@Param("number") long number, @Param("value") String value);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select t.code from ReviewTicket t")
  List<String> allCodes();
}
