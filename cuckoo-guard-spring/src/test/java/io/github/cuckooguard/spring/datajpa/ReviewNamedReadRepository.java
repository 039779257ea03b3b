package io.github.cuckooguard.spring.datajpa;

import io.github.cuckooguard.spring.CuckooGuarded;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reviewer's repository (R13): a method that is neither {@code @Modifying} nor annotated with a
 * query, whose name is no write word; Spring Data runs the named query "Item.enroll" for it, which
 * is declared in code ({@link ReviewJpaConfig}; orm.xml would do the same) and inserts. The check
 * does not find that named query, and for a non-modifying method an unreadable query counts as a
 * read.
 *
 * <p>This describes main before the R13 fix (40e5d87); WritePathCheckGapsTest now expects the start
 * to fail naming the method.
 */
@CuckooGuarded(name = "items")
public interface ReviewNamedReadRepository extends GuardedItems {

  @Transactional
  Long enroll(@Param("id") long id, @Param("name") String name);
}
