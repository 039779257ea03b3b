package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

/**
 * Issue 15's repository: a guard of its own on a {@code JpaRepository}, whose inherited {@code
 * save} the guard cannot follow (before the check, {@code save(new Customer(1, "alice"))} then
 * {@code findById(1L)} gave {@code Optional.empty()} for a row that exists).
 */
@CuckooGuarded(name = "customers")
public interface CustomerJpaRepository extends JpaRepository<Customer, Long> {

  @Override
  @GuardedFind
  Optional<Customer> findById(Long id);

  @GuardKeySource
  @Query("select c.id from Customer c")
  List<Long> allIds();
}
