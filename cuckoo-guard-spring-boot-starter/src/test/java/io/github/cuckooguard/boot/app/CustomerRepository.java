package io.github.cuckooguard.boot.app;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/** A Spring Data repository whose finders use the entity guard of {@link Customer}. */
@CuckooGuarded(entity = Customer.class)
public interface CustomerRepository extends JpaRepository<Customer, Long> {

  @Override
  @GuardedFind
  Optional<Customer> findById(Long id);
}
