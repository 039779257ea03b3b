package io.github.cuckooguard.spring.jpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import io.github.cuckooguard.spring.GuardedRemove;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring Data JPA interface repository: the guard annotations sit on interface methods, and the
 * guard wraps the proxy Spring Data builds (whose own transaction interceptor runs inside). Inserts
 * and deletes are {@code @Modifying} queries that report a row count, as the add and remove
 * contracts need; Spring Data's {@code save} (an upsert) and {@code deleteById} (silent on a
 * missing id) are deliberately not annotated.
 */
@CuckooGuarded(name = "accounts", expectedInsertions = 10_000, fpp = 0.001)
public interface AccountRepository extends Repository<Account, Long> {

  @GuardedFind
  Optional<Account> findById(Long id);

  @GuardedFind
  boolean existsById(Long id);

  @GuardedFind
  List<Account> findAllById(Long id);

  @GuardedAdd(key = "#id")
  @Transactional
  @Modifying
  @Query(value = "insert into account(id, name) values (:id, :name)", nativeQuery = true)
  int insert(@Param("id") long id, @Param("name") String name);

  @GuardedRemove(key = "#id")
  @Transactional
  @Modifying
  @Query("delete from Account a where a.id = :id")
  int deleteAccount(@Param("id") long id);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select a.id from Account a")
  List<Long> allIds();

  /** Unguarded: the truth, for assertions. */
  @Query("select count(a) > 0 from Account a where a.id = :id")
  boolean rowExists(@Param("id") long id);
}
