package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;
import org.springframework.transaction.annotation.Transactional;

/** Reviewer's repository (R13): declares the guard "reviewItemNames", items keyed by name. */
@CuckooGuarded(name = "reviewItemNames")
public interface ReviewItemNamesRepository extends Repository<Item, Long> {

  @GuardedFind
  Optional<Item> findByName(String name);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select i.name from Item i")
  List<String> allNames();
}
