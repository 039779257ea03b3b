package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code @Modifying} methods without {@code @Query}: Spring Data runs the named query
 * "Item.<method>", which inserts ({@link Item}'s {@code @NamedNativeQuery} "Item.register" and
 * {@code @NamedQuery} "Item.copy", and "Item.restore", added in code by {@link ItemJpaConfig}).
 */
@CuckooGuarded(name = "items")
public interface ItemNamedInsertRepository extends GuardedItems {

  @Transactional
  @Modifying
  int register(@Param("id") long id, @Param("name") String name);

  @Transactional
  @Modifying
  int copy(@Param("id") long id, @Param("offset") long offset);

  @Transactional
  @Modifying
  int restore(@Param("id") long id, @Param("name") String name);
}
