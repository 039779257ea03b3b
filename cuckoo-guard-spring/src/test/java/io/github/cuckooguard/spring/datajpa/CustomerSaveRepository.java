package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedAdd;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.CrudRepository;

/**
 * A {@code CrudRepository} that re-declares the generic {@code save(S)} as an insert the guard
 * follows: the re-declaration (and its bridge {@code save(Object)}) hides the inherited {@code
 * save}, which the check must not report; the other inherited writes stay unfollowed.
 */
@CuckooGuarded(name = "customers")
public interface CustomerSaveRepository extends CrudRepository<Customer, Long> {

  @Override
  @GuardedAdd(key = "#entity.id")
  <S extends Customer> S save(S entity);

  @Override
  @GuardedFind
  Optional<Customer> findById(Long id);

  @GuardKeySource
  @Query("select c.id from Customer c")
  List<Long> allIds();
}
