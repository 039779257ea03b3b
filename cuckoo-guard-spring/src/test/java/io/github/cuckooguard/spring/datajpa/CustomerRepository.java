package io.github.cuckooguard.spring.datajpa;

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
 * What the failure message of {@link CustomerJpaRepository} asks for: a {@code Repository} whose
 * every write is an annotated insert or delete; an update that changes no key needs nothing.
 */
@CuckooGuarded(name = "customers")
public interface CustomerRepository extends Repository<Customer, Long> {

  @GuardedFind
  Optional<Customer> findById(Long id);

  @GuardedAdd(key = "#id")
  @Transactional
  @Modifying
  @Query(value = "insert into customer(id, name) values (:id, :name)", nativeQuery = true)
  int insert(@Param("id") long id, @Param("name") String name);

  @GuardedRemove(key = "#id")
  @Transactional
  @Modifying
  @Query("delete from Customer c where c.id = :id")
  int delete(@Param("id") long id);

  @Transactional
  @Modifying
  @Query("update Customer c set c.name = :name where c.id = :id")
  int rename(@Param("id") long id, @Param("name") String name);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select c.id from Customer c")
  List<Long> allIds();
}
