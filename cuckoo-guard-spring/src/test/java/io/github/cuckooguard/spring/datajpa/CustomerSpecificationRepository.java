package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaSpecificationExecutor;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;

/**
 * A guarded repository with Spring Data JPA's specification executor, whose inherited {@code
 * update(UpdateSpecification)} may assign the key and {@code delete(DeleteSpecification)} removes
 * rows the guard does not see.
 */
@CuckooGuarded(name = "customers")
public interface CustomerSpecificationRepository
    extends Repository<Customer, Long>, JpaSpecificationExecutor<Customer> {

  @GuardedFind
  Optional<Customer> findById(Long id);

  @GuardKeySource
  @Query("select c.id from Customer c")
  List<Long> allIds();
}
