package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import io.github.cuckooguard.spring.GuardKeySource;
import io.github.cuckooguard.spring.GuardedFind;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.query.Procedure;
import org.springframework.data.repository.RepositoryDefinition;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * A repository declared with {@code @RepositoryDefinition} instead of extending {@code Repository}
 * (which the check did not recognise as a Spring Data repository at all), with an unannotated
 * insert and a stored procedure call, whose writes the check cannot read.
 */
@CuckooGuarded(name = "items")
@RepositoryDefinition(domainClass = Item.class, idClass = Long.class)
public interface ItemDefinitionRepository {

  @GuardedFind
  Optional<Item> findById(Long id);

  @Transactional
  @Modifying
  @Query(value = "insert into item(item_no, name) values (:id, :name)", nativeQuery = true)
  int insert(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Procedure("import_item")
  void importItem(long id);

  @GuardKeySource
  @Transactional(readOnly = true)
  @Query("select i.id from Item i")
  List<Long> allIds();
}
