package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/** A derived delete and a {@code @Modifying} delete that the guard would not see. */
@CuckooGuarded(name = "customers")
public interface CustomerDerivedDeleteRepository extends Repository<Customer, Long> {

  @GuardedFind
  Optional<Customer> findById(Long id);

  @Transactional
  long deleteByName(String name);

  @Transactional
  @Modifying
  @Query("delete from Customer c where c.id = :id")
  int purge(@Param("id") long id);

  @GuardKeySource
  @Query("select c.id from Customer c")
  List<Long> allIds();
}
